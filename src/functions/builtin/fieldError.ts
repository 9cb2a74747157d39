// apimachinery's field.Error, whose text P&T's validation errors and FATAL results carry.
export type FieldErrorType = 'Required value' | 'Invalid value' | 'Unsupported value';

export class FieldError extends Error {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly detail = '',
    readonly badValue?: unknown,
  ) {
    let text = `${field}: ${type}`;
    if (type !== 'Required value' && badValue !== undefined) text += `: ${JSON.stringify(badValue)}`;
    if (detail !== '') text += `: ${detail}`;
    super(text);
    this.name = 'FieldError';
  }

  /** The same error one level down: field `x` becomes `<parent>.x` (or `<parent>[i].x`). */
  under(parent: string): FieldError {
    const field = this.field.startsWith('[') ? `${parent}${this.field}` : `${parent}.${this.field}`;
    return new FieldError(this.type, field, this.detail, this.badValue);
  }
}
