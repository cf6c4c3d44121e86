import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppLive } from "./App.js"
import { describeStartupFailure } from "./Logging.js"
import { runMain, teardown } from "./RunMain.js"

/** The service until SIGTERM or SIGINT; a start that fails says why in one line and exits 1. */
Layer.launch(AppLive).pipe(
  Effect.tapCause((cause) =>
    Cause.hasInterruptsOnly(cause) ? Effect.void : Console.error(describeStartupFailure(cause))
  ),
  runMain({ disableErrorReporting: true, teardown })
)
