/**
 * What a custom action is (SPEC.md "Custom action (operator-authored)"; the body of
 * POST /custom-actions is "not shown" there, so this shape is ours, restated in
 * docs/configuration.md "Custom actions"). One schema serves the API's validation,
 * OpenAPI import drafts and integration packs.
 *
 * A constrained HTTP action has a fixed method and path; its path, header, query and
 * JSON-body fields are templates over the action's declared inputs only. A constrained
 * SSH action runs a bare command with one template per argument, each rendered argument
 * quoted on its own. Templates are `{{ inputs.<name> }}` placeholders in literal text:
 * no filters, no tags, nothing but declared inputs (so never a secret).
 */
import * as v from 'valibot';

/** `custom.` then dot-separated lower-case segments: `custom.shodan.host_lookup`. */
export const CUSTOM_ACTION_NAME = /^custom(\.[a-z][a-z0-9_]{0,62}){1,3}$/;
const INPUT_NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** A bare program name or path: no spaces, quotes or shell syntax. */
const BARE_COMMAND = /^[A-Za-z0-9_./+-]{1,200}$/;
/** A header name a custom action may declare (shared with the OpenAPI import). */
export const HEADER_NAME = /^[A-Za-z0-9-]{1,100}$/;

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const inputTypes = ['string', 'integer', 'number', 'boolean'] as const;
export const risks = ['read', 'write', 'arbitrary'] as const;
/** What the action does to the world; the managed types are containment (issue 22). */
export const effectTypes = ['none', 'notify', 'enrich', 'ticket', 'block', 'contain', 'disable_identity', 'arbitrary'] as const;
/** Effect types only an integration pack may declare: the response policy manages them. */
export const managedEffectTypes: readonly string[] = ['block', 'contain', 'disable_identity'];
export const targetTypes = ['ip', 'host', 'domain', 'url', 'identity', 'hash'] as const;

const template = v.pipe(v.string(), v.maxLength(2000));
const fieldTemplatesOf = (key: v.GenericSchema<string, string>) =>
  v.pipe(
    v.record(key, template),
    v.check((r) => Object.keys(r).length <= 50, 'at most 50 fields'),
  );
const fieldTemplates = fieldTemplatesOf(v.pipe(v.string(), v.minLength(1), v.maxLength(100)));

export const customActionInputSchema = v.object({
  name: v.pipe(v.string(), v.regex(INPUT_NAME, 'lower-case letters, digits and _, starting with a letter')),
  type: v.picklist(inputTypes),
  required: v.optional(v.boolean(), false),
  description: v.optional(v.pipe(v.string(), v.maxLength(1000)), ''),
  /** Never written to the action log (shown as `[redacted]`). */
  secret: v.optional(v.boolean(), false),
});

export const customActionOutputSchema = v.object({
  name: v.pipe(v.string(), v.regex(INPUT_NAME, 'lower-case letters, digits and _, starting with a letter')),
  /**
   * Where the value is in the answer, e.g. `$.data.id` or `$.items[0].name`; a name may be
   * an XML answer's `@attribute`, `#text` or `prefix:tag` (xml-answer.ts). A filter part
   * `[?@.ip=="{{ inputs.ip }}"]` picks the first list element whose field equals the
   * rendered text exactly (render.ts `readJsonPath`).
   */
  path: v.pipe(
    v.string(),
    v.maxLength(500),
    v.regex(
      /^\$(\.(@?[A-Za-z_][A-Za-z0-9_:-]*|#text)|\[\d+\]|\[\?@(\.[A-Za-z_][A-Za-z0-9_]*)?=="[^"]*"\])*$/,
      'a path of $, .name (.@attribute, .#text), [index] and [?@.name=="text"] filter parts',
    ),
  ),
  type: v.picklist(inputTypes),
});

export const customHttpSchema = v.object({
  method: v.picklist(httpMethods),
  /** Starts with `/`; a placeholder fills a whole path segment, URL-encoded, so it cannot leave the path. */
  path: v.pipe(v.string(), v.startsWith('/'), v.maxLength(2000)),
  /** Header names are tokens of letters, digits and `-`; templates/specProblems refuses the ones the transport sets itself. */
  headers: v.optional(fieldTemplatesOf(v.pipe(v.string(), v.regex(HEADER_NAME, 'a header name: letters, digits and - only'))), {}),
  query: v.optional(fieldTemplates, {}),
  /** JSON body fields; null sends no body. */
  body: v.optional(v.nullable(fieldTemplates), null),
});

export const customSshSchema = v.object({
  command: v.pipe(v.string(), v.regex(BARE_COMMAND, 'a bare command: letters, digits and _ . / + - only')),
  args: v.optional(v.pipe(v.array(template), v.maxLength(50)), []),
});

const outputName = v.pipe(v.string(), v.regex(INPUT_NAME, 'an output name: lower-case letters, digits and _, starting with a letter'));
/** Vendor values or message fragments: each trimmed and never empty (an empty fragment would match every message). */
const vendorTexts = v.pipe(v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))), v.maxLength(20));

/** An exit code of an ssh command and the wording (fragments of its stdout or stderr) that, together, mean one thing. */
const exitWording = v.strictObject({
  exit_code: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(255)),
  wording: v.pipe(vendorTexts, v.minLength(1)),
});

/**
 * What the action declares about its effect on the vendor (SPEC.md "Managed containment
 * actions": "Read-back rule", "Exit and verdict handling"; docs/configuration.md "Custom
 * actions", "Effect declarations"). Every part is optional; templates.ts/specProblems
 * checks that named outputs are declared and each part fits the action.
 *
 * - `enforced_output`, `enforced_values`: on a read, the output telling whether the target
 *   is enforced and the values meaning it is (a value may hold input
 *   placeholders: `{{ inputs.ip }}` is enforced when the read answers that address back).
 * - `outcome`, on an http action: the output carrying the vendor's verdict, the values
 *   meaning success, the output carrying its message, and message fragments meaning the
 *   object is already there (`already_present`) or already gone (`already_absent`);
 *   outcome.ts applies it.
 * - `exit`, on an ssh action (SPEC.md: "the exit code alone never decides"): the exit
 *   codes that, with the command's own wording, mean the object is already there
 *   (`already_present`) or already gone (`already_absent`), and wording that is a refusal
 *   whatever the exit code (`refusal`); ssh-verdict.ts applies it.
 * - `ownership`: the read action proving a shared vendor object's entry is ours, and the
 *   refusal when it is not.
 *
 * Strict: a misspelt declaration is refused rather than silently dropped.
 */
export const customEffectSchema = v.strictObject({
  enforced_output: v.optional(outputName),
  enforced_values: v.optional(vendorTexts),
  outcome: v.optional(
    v.strictObject({
      output: outputName,
      success: vendorTexts,
      message: outputName,
      already_present: v.optional(vendorTexts, []),
      already_absent: v.optional(vendorTexts, []),
    }),
  ),
  exit: v.optional(
    v.strictObject({
      already_present: v.optional(v.pipe(v.array(exitWording), v.maxLength(10)), []),
      already_absent: v.optional(v.pipe(v.array(exitWording), v.maxLength(10)), []),
      refusal: v.optional(vendorTexts, []),
    }),
  ),
  ownership: v.optional(
    v.strictObject({
      read: v.pipe(v.string(), v.regex(CUSTOM_ACTION_NAME, 'a custom action name')),
      refusal: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500)),
    }),
  ),
});

export const customActionSpecSchema = v.pipe(
  v.object({
    name: v.pipe(v.string(), v.regex(CUSTOM_ACTION_NAME, 'custom. followed by one to three lower-case segments')),
    title: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
    description: v.optional(v.pipe(v.string(), v.maxLength(4000)), ''),
    transport: v.picklist(['http', 'ssh']),
    /**
     * Whether runbooks may use the action. Absent on create means true; absent on update
     * keeps the action's current state (a disabled action stays disabled), and true or
     * false sets it. Not part of the stored spec: the action's `enabled` is its state.
     */
    enabled: v.optional(v.boolean()),
    /** A connection name of the transport's kind; a step's `with.connection` overrides it. */
    default_connection: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), null),
    inputs: v.optional(v.pipe(v.array(customActionInputSchema), v.maxLength(50)), []),
    http: v.optional(v.nullable(customHttpSchema), null),
    ssh: v.optional(v.nullable(customSshSchema), null),
    outputs: v.optional(v.pipe(v.array(customActionOutputSchema), v.maxLength(50)), []),
    timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(300)), 30),
    /** Tries of one step attempt, the first included (retryable failures only). */
    max_attempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)), 1),
    /** Action-log paths masked as `[redacted]`: `$.input.<field>` or `$.output.<field>...`. */
    redact: v.optional(
      v.pipe(v.array(v.pipe(v.string(), v.regex(/^\$\.(input|output)(\.[A-Za-z_][A-Za-z0-9_-]*)+$/, 'a path under $.input or $.output'))), v.maxLength(50)),
      [],
    ),
    effect_type: v.picklist(effectTypes),
    risk: v.picklist(risks),
    /** Which input names the target the action acts on, and what kind of target it is. */
    target: v.optional(v.nullable(v.object({ type: v.picklist(targetTypes), input: v.pipe(v.string(), v.regex(INPUT_NAME)) })), null),
    /** Most targets one execution may touch; null is unbounded. */
    max_targets: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), null),
    /** Rendered per execution; an HTTP action sends it as `Idempotency-Key`. */
    idempotency_key: v.optional(v.nullable(template), null),
    /** The action that undoes this one, with its inputs as templates over this action's inputs. */
    compensation: v.optional(v.nullable(v.object({ action: v.pipe(v.string(), v.regex(CUSTOM_ACTION_NAME)), with: v.optional(fieldTemplates, {}) })), null),
    /** Absent when the action declares nothing about its effect; absent stays absent, so specs saved before it compare equal. */
    effect: v.optional(customEffectSchema),
  }),
  v.check(
    (s) => (s.transport === 'http' ? s.http !== null && s.ssh === null : s.ssh !== null && s.http === null),
    'an http action has `http` and no `ssh`; an ssh action the reverse',
  ),
);

/** A spec as authored, `enabled` included when the author said it. */
export type CustomActionSpec = v.InferOutput<typeof customActionSpecSchema>;
/** A spec as stored in events and read models: without `enabled`, which is the action's state. */
export type StoredCustomActionSpec = Omit<CustomActionSpec, 'enabled'>;

/** The spec as stored: everything but `enabled`, which is the action's state. */
export function storedSpec(spec: CustomActionSpec): StoredCustomActionSpec {
  const copy: Partial<CustomActionSpec> = { ...spec };
  delete copy.enabled;
  return copy as StoredCustomActionSpec;
}
export type CustomActionInput = v.InferOutput<typeof customActionInputSchema>;
export type CustomEffect = v.InferOutput<typeof customEffectSchema>;
export type CustomOutcome = NonNullable<CustomEffect['outcome']>;
