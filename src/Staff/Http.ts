import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const StaffLive = HttpApiBuilder.group(Api, "Staff", (handlers) => handlers)
