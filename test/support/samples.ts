import * as fc from "fast-check"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import type { Sample } from "../../src/Contract/Params.js"

/**
 * Parameters as a client sends them (text), drawn from an endpoint's own parameter Schema: each
 * parameter as its `sample` annotation says (src/Contract/Params.ts), any text where it has none;
 * optional parameters sometimes absent. Only records the Schema decodes are drawn.
 */
export const wireRecord = (schema: Schema.Top): fc.Arbitrary<Record<string, string>> => {
  const objects = findObjects(schema.ast)
  if (objects === undefined) return fc.constant({})
  const fields: Record<string, fc.Arbitrary<string>> = {}
  const required: Array<string> = []
  for (const property of objects.propertySignatures) {
    const name = String(property.name)
    const sample = findSample(property.type)
    // no empty text: a path segment never is, and a query value is then the same as none
    fields[name] = sample === undefined ? fc.string({ minLength: 1, maxLength: 40 }) : fromSample(sample).map(String)
    if (property.type.context?.isOptional !== true) required.push(name)
  }
  const decodes = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown, never, never>)
  return fc.record(fields, { requiredKeys: required }).filter((record) => Exit.isSuccess(decodes(record)))
}

/** The names of the parameters a parameter Schema declares. */
export const parameterNames = (schema: Schema.Top): ReadonlyArray<string> =>
  findObjects(schema.ast)?.propertySignatures.map((property) => String(property.name)) ?? []

const fromSample = (sample: Sample): fc.Arbitrary<string | number> => {
  switch (sample.kind) {
    case "integer":
      return fc.integer({ min: sample.min, max: sample.max })
    case "choice":
      return fc.constantFrom(...sample.words)
    case "pattern":
      return fc.stringMatching(sample.pattern)
    case "set":
      return fc.uniqueArray(fromSample(sample.of), { minLength: 1, maxLength: sample.max }).map((values) => values.join(","))
  }
}

/** The Struct of parameters, through the codecs HttpApi wraps it in. */
const findObjects = (ast: SchemaAST.AST): SchemaAST.Objects | undefined => {
  if (ast._tag === "Objects") return ast
  for (const link of ast.encoding ?? []) {
    const found = findObjects(link.to)
    if (found !== undefined) return found
  }
  return undefined
}

/** The `sample` annotation of a parameter, wherever its Schema carries it (the node or a check). */
const findSample = (node: unknown, seen = new Set<unknown>()): Sample | undefined => {
  if (typeof node !== "object" || node === null || seen.has(node)) return undefined
  seen.add(node)
  const annotations = (node as { annotations?: { sample?: Sample } }).annotations
  if (annotations?.sample !== undefined) return annotations.sample
  for (const value of Object.values(node)) {
    const found = findSample(value, seen)
    if (found !== undefined) return found
  }
  return undefined
}
