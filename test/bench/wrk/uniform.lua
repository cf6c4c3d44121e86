-- Uniformly random lines of BENCH_LIST (paths), e.g. every public song's detail path.
local common = dofile("common.lua")
local paths

setup = common.setup
done = common.done

function init(args)
  common.seed()
  paths = common.read_lines(os.getenv("BENCH_LIST"))
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
