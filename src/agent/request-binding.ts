import { z } from 'zod';
import type { ToolPreview } from './tool.js';
import { definitionFromStored, MAX_CHANGE_TEXT, type DefinitionChange, type ToolDefinitionSnapshot } from '../approvals/tool-definition.js';
import { MAX_STATED_REASON } from './stated-reason.js';

/**
 * What an approval request is bound to besides its arguments, as its row stores it and front ends
 * show it (see bound-call.ts for how it is worked out and checked):
 * - `statedReason`: the model's own words for why it makes the call;
 * - `preview`: what the call acts on and the digest of that state, or that the preview failed;
 * - `toolPin`: the tool's definition as its MCP server declared it when the call was asked for;
 * - `askedAgain`: set when this request replaces an approved one whose call did not run.
 */
export interface RequestBinding {
  statedReason?: string;
  preview?: StoredPreview;
  toolPin?: PinnedTool;
  askedAgain?: AskedAgain;
}

/**
 * A request's binding as a front end shows it (Agent.bindingOf): the stored binding, and for a
 * pinned tool whose definition the agent now has differently (its server changed it while the
 * request waits), what changed: the call will be asked again if approved.
 */
export interface RequestBindingView extends RequestBinding {
  toolChanged?: DefinitionChange[];
}

/** A preview as kept with a request: the tool's (checked), or the message of its failure. */
export type StoredPreview = ToolPreview | { failed: string };

export interface PinnedTool {
  digest: string;
  definition: ToolDefinitionSnapshot;
}

/**
 * Why an approved call did not run and was asked again:
 * - `state-changed`: its preview's state digest is not the one approved ("the record changed");
 * - `preview-failed`: its preview failed right before it ran, where the approved one had worked
 *   (a tool whose onPreviewError is 'ask');
 * - `not-previewed`: it was approved without the preview it has now (an approver's edit, a
 *   preview that had failed and works now, a tool that gained or lost its preview);
 * - `tool-changed`: its MCP server's definition of the tool is not the one approved (`changes`);
 * - `freeze`: a change freeze began after it was approved, and its `then` decides the call now;
 * - `policy-changed`: the approval policy (or a freeze it was approved under, now over) changed after it was approved.
 */
export type AskedAgainWhy = 'state-changed' | 'preview-failed' | 'not-previewed' | 'tool-changed' | 'freeze' | 'policy-changed';

export interface AskedAgain {
  /** The approved request this one replaces. */
  fromActionId: number;
  why: AskedAgainWhy;
  /** For `tool-changed`: what changed in the tool's definition. */
  changes?: DefinitionChange[];
}

/** Bounds a preview is held to: what a card can show whole. Beyond them the preview counts as failed. */
export const PREVIEW_LIMITS = { items: 20, label: 200, value: 3000, digest: 256, failure: 1000 } as const;

const label = z.string().trim().min(1).max(PREVIEW_LIMITS.label);
const value = z.string().max(PREVIEW_LIMITS.value);

/** A preview as a tool must return it (unknown keys dropped). */
export const toolPreviewSchema = z.object({
  fields: z.array(z.object({ label, value })).max(PREVIEW_LIMITS.items).optional(),
  diff: z.array(z.object({ label, before: value.optional(), after: value.optional() })).max(PREVIEW_LIMITS.items).optional(),
  stateDigest: z.string().min(1).max(PREVIEW_LIMITS.digest),
});

const failedSchema = z.object({ failed: z.string() });
const askedAgainWhys: readonly AskedAgainWhy[] = ['state-changed', 'preview-failed', 'not-previewed', 'tool-changed', 'freeze', 'policy-changed'];
const changeSchema = z.object({ part: z.string(), before: z.string().max(MAX_CHANGE_TEXT).optional(), after: z.string().max(MAX_CHANGE_TEXT).optional() });

/** The binding columns of a pending_actions row. */
export interface BindingColumns {
  stated_reason?: string | null;
  preview?: unknown;
  tool_pin?: unknown;
  asked_again?: unknown;
}

/** A row's binding, checked: anything not shaped as it is written is left out, never trusted. */
export function bindingOfRow(row: BindingColumns): RequestBinding {
  const binding: RequestBinding = {};
  if (typeof row.stated_reason === 'string' && row.stated_reason !== '') binding.statedReason = row.stated_reason.slice(0, MAX_STATED_REASON);
  const preview = storedPreview(row.preview);
  if (preview) binding.preview = preview;
  const pin = pinnedTool(row.tool_pin);
  if (pin) binding.toolPin = pin;
  const again = askedAgainOf(row.asked_again);
  if (again) binding.askedAgain = again;
  return binding;
}

function storedPreview(value: unknown): StoredPreview | undefined {
  if (value === null || value === undefined) return undefined;
  const failed = failedSchema.safeParse(value);
  if (failed.success) return { failed: failed.data.failed.slice(0, PREVIEW_LIMITS.failure) };
  const parsed = toolPreviewSchema.safeParse(value);
  return parsed.success ? withoutUndefined(parsed.data) : undefined;
}

function pinnedTool(value: unknown): PinnedTool | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as { digest?: unknown; definition?: unknown };
  const definition = definitionFromStored(v.definition);
  return typeof v.digest === 'string' && definition ? { digest: v.digest, definition } : undefined;
}

function askedAgainOf(value: unknown): AskedAgain | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as { fromActionId?: unknown; why?: unknown; changes?: unknown };
  if (!Number.isInteger(v.fromActionId) || !askedAgainWhys.includes(v.why as AskedAgainWhy)) return undefined;
  const changes = Array.isArray(v.changes) ? v.changes.flatMap((c) => {
    const parsed = changeSchema.safeParse(c);
    return parsed.success ? [withoutUndefined(parsed.data) as DefinitionChange] : [];
  }) : undefined;
  return { fromActionId: v.fromActionId as number, why: v.why as AskedAgainWhy, ...(changes?.length ? { changes } : {}) };
}

/** The state a preview stands for, compared between approval and execute: its digest, or that it failed, or that there was none. */
export function stateKey(preview: StoredPreview | undefined): string {
  if (!preview) return 'none';
  return 'failed' in preview ? 'failed' : `digest:${preview.stateDigest}`;
}

/** The digest a grant carries for this preview: null when there is none or it failed. */
export function stateDigestOf(preview: StoredPreview | undefined): string | null {
  return preview && !('failed' in preview) ? preview.stateDigest : null;
}

/** What a `tool-call-approval` chunk carries of a binding (the definition itself stays on the row). */
export interface BindingPayload {
  statedReason?: string;
  preview?: StoredPreview;
  toolDigest?: string;
  askedAgain?: AskedAgain;
}

export function bindingPayload(binding: RequestBinding): BindingPayload {
  return {
    ...(binding.statedReason !== undefined ? { statedReason: binding.statedReason } : {}),
    ...(binding.preview ? { preview: binding.preview } : {}),
    ...(binding.toolPin ? { toolDigest: binding.toolPin.digest } : {}),
    ...(binding.askedAgain ? { askedAgain: binding.askedAgain } : {}),
  };
}

/** The binding columns a request is written with (null-free: absent keys are NULL in the row). */
export function bindingColumns(binding: RequestBinding): { stated_reason?: string; preview?: StoredPreview; tool_pin?: PinnedTool; asked_again?: AskedAgain } {
  return {
    ...(binding.statedReason !== undefined ? { stated_reason: binding.statedReason } : {}),
    ...(binding.preview ? { preview: binding.preview } : {}),
    ...(binding.toolPin ? { tool_pin: binding.toolPin } : {}),
    ...(binding.askedAgain ? { asked_again: binding.askedAgain } : {}),
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
