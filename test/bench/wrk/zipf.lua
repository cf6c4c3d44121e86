-- Lines of BENCH_LIST drawn by a Zipf law: line r (1-based, most popular first) with weight
-- 1 / r^s (BENCH_ZIPF_S, default 1). Inverse CDF over a precomputed cumulative table.
local common = dofile("common.lua")
local paths, cumulative

setup = common.setup
done = common.done

function init(args)
  common.seed()
  paths = common.read_lines(os.getenv("BENCH_LIST"))
  local s = tonumber(os.getenv("BENCH_ZIPF_S") or "1")
  cumulative = {}
  local total = 0
  for r = 1, #paths do
    total = total + 1 / (r ^ s)
    cumulative[r] = total
  end
  for r = 1, #paths do cumulative[r] = cumulative[r] / total end
end

local function pick()
  local u = math.random()
  local lo, hi = 1, #cumulative
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cumulative[mid] < u then lo = mid + 1 else hi = mid end
  end
  return lo
end

function request()
  return wrk.format("GET", paths[pick()])
end
