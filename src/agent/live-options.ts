import type { ContinuationOptions } from './api-types.js';
import type { LiveOptions } from './run-model.js';
import { checkCallSettings } from './model-settings.js';
import type { TelemetrySettings } from './telemetry.js';
import { ModelSettingsError } from './errors.js';

/** The options of a call that live only in this process, checked; undefined when there are none. */
export function liveOptions(where: string, options: ContinuationOptions): LiveOptions | undefined {
  const settings = checkCallSettings(where, options.modelSettings, options.providerOptions);
  checkTelemetry(where, options.telemetry);
  if (options.abortSignal !== undefined && !(options.abortSignal instanceof AbortSignal)) {
    throw new ModelSettingsError(where, ['abortSignal: must be an AbortSignal']);
  }
  if (!settings && !options.abortSignal && !options.telemetry) return undefined;
  return { ...(settings ? { settings } : {}), ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}), ...(options.telemetry ? { telemetry: options.telemetry } : {}) };
}

export function checkTelemetry(where: string, telemetry: TelemetrySettings | undefined): void {
  if (telemetry === undefined) return;
  const tracer = telemetry.tracer as { startActiveSpan?: unknown } | undefined;
  if (typeof telemetry !== 'object' || telemetry === null || (tracer !== undefined && typeof tracer?.startActiveSpan !== 'function')) {
    throw new ModelSettingsError(where, ['telemetry: must be { isEnabled, tracer?, functionId?, metadata? }, tracer an OpenTelemetry Tracer']);
  }
}
