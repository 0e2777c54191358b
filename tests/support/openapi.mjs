// Validates API responses against an OpenAPI 3.1 document (JSON Schema 2020-12, ajv).
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A validator for one OpenAPI document whose paths are relative to `prefix` (e.g. `/v1`). */
export function openApiValidator(doc, prefix = '') {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'api');
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${prefix}${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  }));
  const escape = (s) => s.replaceAll('~', '~0').replaceAll('/', '~1');

  /** Throws unless `body` is what the document says `method pathname` answers with `status`. */
  return function assertConforms(method, pathname, status, body) {
    const match = templates.find((t) => t.pattern.test(pathname));
    const operation = match && doc.paths[match.template][method.toLowerCase()];
    // Paths and methods the document does not list answer in the error shape.
    const ref = operation && operation.responses[String(status)]
      ? `api#/paths/${escape(match.template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
      : 'api#/components/schemas/Error';
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema at ${ref}`);
    if (!validate(body)) {
      throw new Error(`${method} ${pathname} ${status} does not conform: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    }
  };
}
