import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Compiles schemas of a served OpenAPI 3.1 document with ajv (JSON Schema 2020-12, the formats the
 * document uses), resolving their `#/components/schemas/...` references against the document.
 * Shared by the fuzz test's request oracle and the response contract check.
 */

export type Schema = Record<string, unknown>;

export interface DocumentWithSchemas {
  components: { schemas: Record<string, Schema> };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOCUMENT_ID = 'https://document.invalid/openapi.json';

export function documentSchemas(document: DocumentWithSchemas) {
  // discriminator: a oneOf keyed on `code` reports the errors of the branch the body names.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, discriminator: true });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  ajv.addFormat('base64', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  // ajv reads a discriminator's propertyName but refuses a mapping (it finds each branch's const).
  const forAjv = (schema: unknown): Schema =>
    JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}`
      : key === 'discriminator' ? { propertyName: (value as { propertyName: string }).propertyName }
      : value,
    ) as Schema;
  ajv.addSchema({ $id: DOCUMENT_ID, components: forAjv(document.components) });
  const compiled = new Map<Schema, ValidateFunction>();
  return function validator(schema: Schema): ValidateFunction {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(forAjv(schema));
      compiled.set(schema, validate);
    }
    return validate;
  };
}
