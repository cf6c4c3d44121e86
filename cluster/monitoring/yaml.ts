/**
 * YAML text for the monitoring files (rules, their unit tests, Prometheus's configuration), written
 * to be read by a person: a multi-line string (a PromQL expression) as a literal block, every other
 * string plain when YAML reads it back as the same string, double-quoted otherwise.
 */
export type YamlValue = string | number | boolean | ReadonlyArray<YamlValue> | { readonly [key: string]: YamlValue | undefined }

/** A string YAML would read back unchanged without quotes: no indicator first, no `: ` or ` #`, not a number or keyword. */
const plain = (text: string) =>
  !/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(text) &&
  !/: |:$| #|\s$|\t/.test(text) &&
  !/^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^0[xo]|^\.(inf|nan)$/i.test(text) &&
  !/^(true|false|yes|no|on|off|y|n|null|~)$/i.test(text)

/** Plain when it can be, else single-quoted (PromQL's double quotes stay readable), else double-quoted. */
const scalar = (value: string | number | boolean) => {
  if (typeof value !== "string") return String(value)
  if (plain(value)) return value
  return value.includes("'") ? JSON.stringify(value) : `'${value}'`
}

const isBlock = (value: YamlValue | undefined): value is string => typeof value === "string" && value.includes("\n")

const block = (text: string, indent: string) =>
  `|\n${text.replace(/\n$/, "").split("\n").map((line) => (line === "" ? "" : `${indent}${line}`)).join("\n")}`

const isEmpty = (value: YamlValue) =>
  Array.isArray(value) ? value.length === 0 : typeof value === "object" && Object.keys(value).length === 0

/** `key: value` lines of an object, nested ones indented by two spaces. */
const mapping = (object: { readonly [key: string]: YamlValue | undefined }, indent: string): Array<string> =>
  Object.entries(object).flatMap(([key, value]) => {
    if (value === undefined) return []
    if (isBlock(value)) return [`${indent}${key}: ${block(value, `${indent}  `)}`]
    if (typeof value !== "object") return [`${indent}${key}: ${scalar(value)}`]
    if (isEmpty(value)) return [`${indent}${key}: ${Array.isArray(value) ? "[]" : "{}"}`]
    return [`${indent}${key}:`, ...(Array.isArray(value) ? sequence(value, `${indent}  `) : mapping(value as never, `${indent}  `))]
  })

/** `- item` lines; an object item starts on the dash's line. */
const sequence = (items: ReadonlyArray<YamlValue>, indent: string): Array<string> =>
  items.flatMap((item) => {
    if (isBlock(item)) return [`${indent}- ${block(item, `${indent}  `)}`]
    if (typeof item !== "object") return [`${indent}- ${scalar(item)}`]
    const lines = Array.isArray(item) ? sequence(item, `${indent}  `) : mapping(item as never, `${indent}  `)
    return lines.map((line, at) => (at === 0 ? `${indent}- ${line.slice(indent.length + 2)}` : line))
  })

/** A YAML document for `value` (an object), ending with a newline; `header` lines become comments above it. */
export const toYaml = (value: { readonly [key: string]: YamlValue | undefined }, header: ReadonlyArray<string> = []) =>
  [...header.map((line) => `# ${line}`.trimEnd()), ...mapping(value, "")].join("\n") + "\n"
