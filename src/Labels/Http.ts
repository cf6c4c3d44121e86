import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const LabelsLive = HttpApiBuilder.group(Api, "Labels", (handlers) => handlers)
