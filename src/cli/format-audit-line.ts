import type { AuditEvent } from '../db/audit.js';

/** One audit event as one JSON line, stable field order, ISO time. */
export function formatAuditLine(event: AuditEvent): string {
  return JSON.stringify({
    id: event.id,
    at: event.at.toISOString(),
    event: event.event,
    runId: event.runId,
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    actor: event.actor,
    fingerprint: event.fingerprint,
    policyVersion: event.policyVersion,
    detail: event.detail,
  });
}
