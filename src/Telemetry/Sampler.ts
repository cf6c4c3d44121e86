import type * as Tracer from "effect/Tracer"
import type { SamplerName } from "../Config.js"

/** Whether a request is traced, from its caller's span (if any) and its trace id. */
export type Sampler = (caller: Tracer.ExternalSpan | undefined, traceId: string) => boolean

/**
 * A trace id's sampling decision at `ratio`, from its last 52 bits (random in W3C trace ids):
 * the same id gets the same decision in every service that samples it so.
 */
const byTraceId = (ratio: number) => {
  const below = ratio * 2 ** 52
  return (traceId: string) => parseInt(traceId.slice(-13), 16) < below
}

/** OTEL_TRACES_SAMPLER as OpenTelemetry defines its samplers; `parentbased_*` follow a caller's decision. */
export const makeSampler = (name: SamplerName, ratio: number): Sampler => {
  const sampledRoot = byTraceId(ratio)
  switch (name) {
    case "always_on":
      return () => true
    case "always_off":
      return () => false
    case "traceidratio":
      return (_, traceId) => sampledRoot(traceId)
    case "parentbased_always_on":
      return (caller) => caller?.sampled ?? true
    case "parentbased_always_off":
      return (caller) => caller?.sampled ?? false
    case "parentbased_traceidratio":
      return (caller, traceId) => caller === undefined ? sampledRoot(traceId) : caller.sampled
  }
}
