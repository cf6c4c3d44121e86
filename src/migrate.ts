import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DatabaseReady } from "./App.js"
import { AppConfig } from "./Config.js"
import { describeStartupFailure } from "./Logging.js"
import { runMain, teardown } from "./RunMain.js"

/**
 * `bun run migrate`: brings the schema of sql/ (src/Database/Schema.ts) up to date on DATABASE_URL
 * (or the embedded database) and exits; a failure says why in one line and exits 1.
 */
Layer.build(DatabaseReady).pipe(
  Effect.scoped,
  Effect.provide(AppConfig.layer),
  Effect.tapCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.void : Console.error(describeStartupFailure(cause)))),
  runMain({ disableErrorReporting: true, teardown })
)
