import { SpanStatusCode, trace, type Attributes, type AttributeValue, type Span, type Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry spans for model and tool calls, opt-in as AI SDK's
 * `experimental_telemetry` is. Without `isEnabled: true` no span is made and
 * nothing of this runs. `tracer` defaults to the global tracer provider's (a
 * no-op until the application registers an SDK).
 */
export interface TelemetrySettings {
  isEnabled?: boolean;
  tracer?: Tracer;
  /** Recorded as `ai.telemetry.functionId`, to tell one use of an agent from another. */
  functionId?: string;
  /** Recorded as `ai.telemetry.metadata.<key>` on every span. */
  metadata?: Record<string, AttributeValue>;
}

/** Telemetry as a run uses it: resolved once, absent when off. */
export interface RunTelemetry {
  tracer: Tracer;
  /** Attributes every span of the run carries. */
  base: Attributes;
}

const tracerName = 'slack-approval-bot';

/** The telemetry of a run of `agentId`: the call's settings win over the agent's; undefined when off. */
export function runTelemetry(agentDefault: TelemetrySettings | undefined, perCall: TelemetrySettings | undefined): RunTelemetry | undefined {
  const settings = perCall ?? agentDefault;
  if (!settings?.isEnabled) return undefined;
  const base: Attributes = {};
  if (settings.functionId) base['ai.telemetry.functionId'] = settings.functionId;
  for (const [key, value] of Object.entries(settings.metadata ?? {})) base[`ai.telemetry.metadata.${key}`] = value;
  return { tracer: settings.tracer ?? trace.getTracer(tracerName), base };
}

/**
 * Runs `work` inside a span (the active one while it runs, so spans the work
 * makes, e.g. an instrumented HTTP client's, nest under it). A thrown error is
 * recorded on the span and rethrown; `finish` may add attributes from the result.
 */
export function inSpan<T>(
  telemetry: RunTelemetry,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  finish?: (span: Span, result: T) => void,
): Promise<T> {
  return telemetry.tracer.startActiveSpan(name, { attributes: { ...telemetry.base, ...attributes } }, async (span) => {
    try {
      const result = await work(span);
      finish?.(span, result);
      return result;
    } catch (error) {
      recordError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export function recordError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  else span.recordException(String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
