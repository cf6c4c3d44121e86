/**
 * Contribution histories: every song has the member who added it and, on average, about one
 * edit after that, each with the details an edit shows (credits, links and fields changed).
 */
import type { Catalogue } from "./catalogue.js"
import type { Credit } from "./credits.js"
import { timeText } from "./dates.js"
import * as W from "./names.js"
import type { Random } from "./random.js"
import { type Batch, push, type Row } from "./tables.js"
import { at } from "./text.js"

/** Hands out contribution ids in the order songs are walked. */
export class Contributions {
  private nextId = 1

  constructor(private readonly cat: Catalogue) {}

  /** Adds the history of song `song` created at `created`; returns when it was last edited. */
  forSong(rng: Random, song: number, created: number, credits: ReadonlyArray<Credit>, batch: Batch): number {
    const cat = this.cat
    const add = cat.pickContributor(rng)
    push(batch, "contributions", {
      id: this.nextId++,
      member_id: add,
      song_id: song,
      action: "add",
      action_at: timeText(created),
      details: {}
    })
    const edits = rng.weighted([
      [0, 40],
      [1, 35],
      [2, 15],
      [3, 7],
      [4, 3]
    ])
    const editTimes: Array<number> = []
    for (let i = 0; i < edits; i++) editTimes.push(cat.between(rng, created + 60_000, cat.todayMs - 1000))
    editTimes.sort((a, b) => a - b)
    for (const time of editTimes) {
      const editor = rng.chance(0.4) ? add : cat.pickContributor(rng)
      push(batch, "contributions", {
        id: this.nextId++,
        member_id: editor,
        song_id: song,
        action: "edit",
        action_at: timeText(time),
        details: editDetails(cat, rng, credits)
      })
    }
    return editTimes.length > 0 ? (editTimes[editTimes.length - 1] ?? created) : created
  }
}

const editDetails = (cat: Catalogue, rng: Random, credits: ReadonlyArray<Credit>): Row => {
  const roleTitle = (role: number) => at(W.ROLES, role - 1).title
  const added: Array<Row> = []
  const removed: Array<Row> = []
  const links: Array<Row> = []
  const focus = rng.weighted<string>([
    ["credits", 35],
    ["links", 25],
    ["text", 25],
    ["mixed", 15]
  ])
  if (focus === "credits" || focus === "mixed") {
    const count = rng.int(1, Math.min(2, credits.length))
    const first = rng.int(0, credits.length - 1)
    for (let i = 0; i < count; i++) {
      const credit = at(credits, (first + i) % credits.length)
      added.push({ artist_name: cat.names.artist(credit.artist).name, role_name: roleTitle(credit.role) })
    }
    if (rng.chance(0.3)) {
      const gone = rng.int(1, cat.plan.artists)
      removed.push({ artist_name: cat.names.artist(gone).name, role_name: roleTitle(rng.int(1, W.ROLES.length)) })
    }
  }
  if (focus === "links" || focus === "mixed") {
    const count = rng.int(1, 2)
    const services = ["streamb", "streama", "vidsvc"]
    for (let i = 0; i < count; i++) {
      links.push({
        service: i === 0 ? rng.weighted([["streamb", 50], ["streama", 30], ["vidsvc", 20]]) : rng.pick(services),
        change: rng.weighted([["added", 70], ["changed", 20], ["removed", 10]])
      })
    }
  }
  const text = focus === "text" || focus === "mixed"
  return {
    added_credits: added,
    removed_credits: removed,
    changed_genres: rng.chance(text ? 0.4 : 0.1),
    changed_labels: rng.chance(text ? 0.2 : 0.05),
    changed_lyrics: rng.chance(text ? 0.4 : 0.05),
    changed_notes: rng.chance(text ? 0.3 : 0.05),
    changed_title: rng.chance(text ? 0.15 : 0.02),
    changed_release_date: rng.chance(text ? 0.25 : 0.05),
    changed_artwork: rng.chance(text ? 0.3 : 0.05),
    links
  }
}
