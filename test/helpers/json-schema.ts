import { Ajv, type ErrorObject } from 'ajv';

/**
 * Validates JSON against a draft-07 schema (Slack's app-manifest schema) with Ajv, reporting
 * every error at a `$.a.b[0]` path.
 *
 * Ajv runs in strict mode, so a keyword it does not know fails compilation instead of being
 * skipped; the non-standard keywords Slack's schema carries are declared here as annotations.
 */

interface SchemaError {
  path: string;
  message: string;
}

/** Slack's own keywords: notes and hints for its tooling, with no rule a manifest must follow. */
const ANNOTATIONS = ['_note', 'regex', 'requires'];

export class JsonSchemaValidator {
  private readonly check: ReturnType<Ajv['compile']>;

  constructor(schema: Record<string, unknown>) {
    const ajv = new Ajv({
      allErrors: true,
      strict: true,
      // Slack's schema puts array keywords on string items in one place; that rule can never fail, so
      // it is not worth refusing the schema over.
      strictTypes: false,
      // Slack's schema mixes `properties` and `patternProperties` on the same objects.
      allowMatchingProperties: true,
      formats: { uri: (value: string) => URL.canParse(value) },
    });
    ajv.addVocabulary(ANNOTATIONS);
    this.check = ajv.compile(schema);
  }

  validate(value: unknown): SchemaError[] {
    if (this.check(value)) return [];
    return (this.check.errors ?? []).map((error) => ({ path: pathOf(error), message: messageOf(error) }));
  }
}

function pathOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return '$' + segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
}

/** Ajv's message, plus the property it is about where Ajv keeps that in `params`. */
function messageOf(error: ErrorObject): string {
  const message = error.message ?? error.keyword;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${message}: ${String(params.additionalProperty)}`;
  return message;
}
