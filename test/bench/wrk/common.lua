-- Shared by the scenario scripts: fixed seeds per thread, a list read from a file, and a
-- JSON summary on stdout that run.ts parses (latencies in microseconds).
local common = {}

local threads = {}
local next_id = 0

function common.setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
  table.insert(threads, thread)
end

function common.seed()
  -- thread_id is set by setup(); the same seed gives the same request sequence every run
  math.randomseed(1000 + (thread_id or 0))
end

function common.read_lines(path)
  local lines = {}
  for line in io.lines(path) do
    if line ~= "" then table.insert(lines, line) end
  end
  if #lines == 0 then error("no lines in " .. path) end
  return lines
end

function common.done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,' ..
    '"write_errors":%d,"timeouts":%d,"non_2xx_3xx":%d,"mean_us":%.1f,"p50_us":%d,"p95_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency.mean, latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end

return common
