import { describe, expect, test } from "bun:test"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { disagreement, matchRoute, ROUTER_CONFIG, routes } from "../src/Http/Routes.js"
import { concrete, spellingsOf } from "./support/spellings.js"

/**
 * Effect's router under the service's settings, given the edge's routes: the server starts only
 * when its router was given exactly these (src/App.ts), so this is the router the service runs.
 * Each route answers its own template.
 */
const router = await Effect.runPromise(
  HttpRouter.toHttpEffect(
    Layer.effectDiscard(
      Effect.gen(function*() {
        const router = yield* HttpRouter.HttpRouter
        for (const route of routes) yield* router.add("GET", route.template as HttpRouter.PathInput, HttpServerResponse.text(route.template))
      })
    )
  ).pipe(Effect.provideService(HttpRouter.RouterConfig, ROUTER_CONFIG), Effect.scoped)
)

/** The template the router serves `target` with, as Bun hands it on (dot segments resolved); undefined: not found. */
const routerMatch = async (target: string): Promise<string | undefined> => {
  const request = HttpServerRequest.fromWeb(new Request(`http://localhost${target}`))
  const exit = await Effect.runPromiseExit(router.pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request), Effect.scoped))
  if (Exit.isFailure(exit)) return undefined
  const body = exit.value.body
  return body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : undefined
}

/** The path as the edge reads it from the same request. */
const edgePath = (target: string) => new URL(`http://localhost${target}`).pathname

/** Spellings the edge refuses by a rule of its own, which the router would have read as another path. */
const STRICTER = /;|%(?:[46][1-9a-fA-F]|[57][0-9aA]|3[0-9]|2[dDeE]|5[fF]|7[eE])|\/\/|.\/$/

describe("the edge and the router match with one matcher", () => {
  test("every endpoint, under every spelling the edge's tests send, is the same route to both", async () => {
    let compared = 0
    for (const route of routes) {
      const path = concrete(route.template)
      for (const target of [path, ...spellingsOf(path).map((spelling) => spelling.path)]) {
        const edge = matchRoute(edgePath(target))?.template
        const routed = await routerMatch(target)
        const where = `${route.template}: ${target}`
        if (edge !== undefined) expect(routed, where).toBe(edge)
        else if (routed !== undefined) expect(STRICTER.test(edgePath(target)), where).toBe(true)
        compared++
      }
      expect(matchRoute(path)?.template).toBe(route.template)
    }
    expect(compared).toBe(routes.length * 12)
  })

  test("a parameter that is not valid UTF-8 still finds its route at the edge (its 400 names it), where the router finds none", async () => {
    expect(matchRoute("/v1/songs/%FF")?.template).toBe("/v1/songs/:songId")
    expect(matchRoute("/v1/genres/%E2%82")?.template).toBe("/v1/genres/:slug")
    expect(await routerMatch("/v1/songs/%FF")).toBeUndefined()
    expect(matchRoute("/v1/songs/1%2Fsimilar")?.template).toBe("/v1/songs/:songId")
    expect(await routerMatch("/v1/songs/1%2Fsimilar")).toBe("/v1/songs/:songId")
  })

  test("a router given other routes than the edge's is named, so the server does not start", () => {
    const templates = routes.map((route) => route.template)
    expect(disagreement(templates)).toBeUndefined()
    expect(disagreement([...templates, "/v1/extra"])).toContain("only the router has [/v1/extra]")
    expect(disagreement(templates.filter((template) => template !== "/v1/songs"))).toContain("only the edge [/v1/songs]")
  })
})
