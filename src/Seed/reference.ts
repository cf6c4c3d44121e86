/** Reference data: roles, genres and record labels. */
import type { Catalogue } from "./catalogue.js"
import * as W from "./names.js"
import { Permutation, streamFor } from "./random.js"
import { S } from "./streams.js"
import type { Row } from "./tables.js"
import { at, slugify } from "./text.js"

export const roleRows = (): Array<Row> =>
  W.ROLES.map((role, index) => ({
    id: index + 1,
    title: role.title,
    slug: role.slug,
    tag: role.tag,
    sort_order: index + 1
  }))

export const genreRows = (): Array<Row> =>
  W.GENRES.map((genre, index) => ({
    id: index + 1,
    slug: genre.slug,
    title: genre.title,
    description: genre.description,
    color: genre.color,
    image_key: index % 5 === 4 ? null : `genres/${genre.slug}.jpg`
  }))

export const labelRows = (cat: Catalogue): Array<Row> => {
  const rows: Array<Row> = []
  const used = new Set<string>()
  const space = W.LABEL_PREFIXES.length * W.LABEL_MIDDLES.length * W.LABEL_SUFFIXES.length
  const perm = new Permutation(space, cat.permutationSeed("labels"))
  let rank = 0
  const generated = () => {
    for (;;) {
      let index = perm.at(rank++ % space)
      const prefix = at(W.LABEL_PREFIXES, index % W.LABEL_PREFIXES.length)
      index = Math.floor(index / W.LABEL_PREFIXES.length)
      const middle = at(W.LABEL_MIDDLES, index % W.LABEL_MIDDLES.length)
      index = Math.floor(index / W.LABEL_MIDDLES.length)
      const suffix = at(W.LABEL_SUFFIXES, index % W.LABEL_SUFFIXES.length)
      const name = [prefix, middle, suffix].filter((part) => part !== "").join(" ")
      if (!used.has(W.foldWord(name)) || rank > space) return name
    }
  }
  for (let id = 1; id <= cat.plan.labels; id++) {
    const rng = streamFor(cat.seed, S.label, id)
    const name = id <= W.LABEL_NAMES.length ? at(W.LABEL_NAMES, id - 1) : generated()
    used.add(W.foldWord(name))
    let formerly: string | null = null
    if (rng.chance(0.12)) {
      formerly = rng.chance(0.5)
        ? `${name.replace(/ (Records|Music|Musik|Sound|Rekod|Entertainment)$/, "")} ${rng.pick(W.LABEL_SUFFIXES)}`
        : `${rng.pick(W.LABEL_PREFIXES)} ${rng.pick(W.LABEL_SUFFIXES)}`
      if (W.foldWord(formerly) === W.foldWord(name)) formerly = `${name} (${rng.int(1975, 2005)})`
    }
    rows.push({ id, name, slug: slugify(name, `label-${id}`), formerly_known_as: formerly })
  }
  return rows
}
