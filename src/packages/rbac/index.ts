// rbac: what Crossplane's RBAC manager does for Providers. Each ProviderRevision gets ClusterRoles granting the kinds
// it installed (edit and view, aggregated into Crossplane's and compositor's roles, and system) and a binding of the
// system role to its runtime's ServiceAccount, named, labelled and owned exactly as upstream's, so either can take
// over the other's.
export { ProviderRbacController, REASON, type ProviderRbacControllerOptions } from './controller.js';
export {
  definedResources,
  LABELS,
  renderProviderRoles,
  revisionControllerRef,
  systemRoleName,
  type Resource,
} from './roles.js';
export { renderProviderBinding, runtimeSubjects, subjectNames, type RuntimeDeployment } from './binding.js';
export { familyOf, grantedResources, orgDiffers, PROVIDER_FAMILY_LABEL } from './family.js';
export { checkControllable, isBindingCurrent, isRoleCurrent, NotControllableError } from './current.js';
