import { BunRuntime } from "@effect/platform-bun"
import { Layer } from "effect"
import { AppLive } from "./App.js"

Layer.launch(AppLive).pipe(BunRuntime.runMain)
