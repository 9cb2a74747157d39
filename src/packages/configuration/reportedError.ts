// The error a revision's pass throws once its failure is on the revision (a condition, an event): the controller
// kit's queue retries it with backoff, and nothing reports it again.

/** A failure already reported on the revision; the queue retries it with backoff. */
export class ReportedError extends Error {
  override readonly name = 'ReportedError';
}
