/**
 * A response shape: its Schema and the SQL that builds it, joined. The SQL of a shape names
 * exactly the Schema's keys (`FieldsSql`): a field missing from, added to or renamed in the SQL
 * fails the type-check. Every shape is registered with sample rows, and test/shapes.test.ts
 * builds each one from them on the real database and checks the JSON against the Schema
 * (same keys, same order, values it decodes).
 *
 *   export const Label = Schema.Struct({ id: Schema.Int, name: Schema.String })
 *   export const label = shape(Label, (l: string) => ({ id: `${l}.id`, name: `${l}.name` }),
 *     { from: "labels l", args: ["l"] })
 *   label.json("l")  -> (SELECT to_json(_j) FROM (SELECT l.id AS "id", l.name AS "name") _j)
 *
 * The SQL is fixed text of the code (./JsonSql.ts), never request text.
 */
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { jsonObjectSql } from "./JsonSql.js"

/** The SQL expression of each field of a Schema.Struct: exactly its keys. */
export type FieldsSql<Fields extends Schema.Struct.Fields> = { readonly [K in keyof Fields]: string }

/** `R` when it has no key beyond `Fields`' (an object spread escapes TypeScript's excess-key check). */
type Exactly<Fields extends Schema.Struct.Fields, R> = Exclude<keyof R, keyof Fields> extends never ? R : never

/** Rows the shape can be built from in a test: `SELECT <json(...args)> FROM <from>`. */
export interface ShapeSample<Args extends ReadonlyArray<unknown>> {
  readonly from?: string | undefined
  readonly args: Args
}

export interface Shape<Fields extends Schema.Struct.Fields, Args extends ReadonlyArray<unknown>> {
  readonly schema: Schema.Struct<Fields>
  /** The fields' SQL: spread it into a larger shape's, or pass it to jsonObjectSql with more. */
  readonly fields: (...args: Args) => FieldsSql<Fields>
  /** The shape as compact JSON. */
  readonly json: (...args: Args) => string
  readonly sample: ShapeSample<Args>
}

/** Every shape made by `shape`, for the test that builds each one. */
export const registeredShapes: Array<Shape<Schema.Struct.Fields, ReadonlyArray<never>> & { readonly name: string }> = []

export const shape = <
  Fields extends Schema.Struct.Fields,
  Args extends ReadonlyArray<unknown>,
  R extends FieldsSql<Fields>
>(
  schema: Schema.Struct<Fields>,
  fields: (...args: Args) => Exactly<Fields, R>,
  sample: ShapeSample<NoInfer<Args>>,
  name: string = identifierOf(schema)
): Shape<Fields, Args> => {
  const made: Shape<Fields, Args> = { schema, fields, json: (...args) => jsonObjectSql(fields(...args)), sample }
  registeredShapes.push({ ...(made as unknown as Shape<Schema.Struct.Fields, ReadonlyArray<never>>), name })
  return made
}

/** A nested object without its own shape (an anonymous Struct): its SQL still names exactly its keys. */
export const objectSql = <Fields extends Schema.Struct.Fields, R extends FieldsSql<Fields>>(
  _schema: Schema.Struct<Fields>,
  fields: Exactly<Fields, R>
) => jsonObjectSql(fields)

const identifierOf = (schema: Schema.Top) => {
  const annotation = AST.resolveIdentifier(schema.ast)
  if (typeof annotation !== "string") throw new Error("a shape's Schema needs an identifier, or pass its name")
  return annotation
}
