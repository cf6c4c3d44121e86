import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DatabaseReady } from "./App.js"
import { AppConfig } from "./Config.js"
import { runMain, teardown } from "./RunMain.js"

/** `bun run migrate`: applies sql/NNNN_*.sql to DATABASE_URL (or the embedded database) and exits. */
Layer.build(DatabaseReady).pipe(Effect.scoped, Effect.provide(AppConfig.layer), (effect) => runMain(effect, { teardown }))
