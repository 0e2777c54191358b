-- wrk script: a mix of both APIs' heaviest everyday requests, round-robin per
-- connection. KEY is a live key; BODIES_DIR holds predict.json, score.json,
-- lookup.json and route.json. Counts answers by status for the summary.
local dir = os.getenv("BODIES_DIR")
local function read(name)
  local f = assert(io.open(dir .. "/" .. name, "r"))
  local body = f:read("*a")
  f:close()
  return body
end
local key = os.getenv("KEY")
local requests = {}
local counter = 0

function init(args)
  local function headers(extra)
    local h = { ["Content-Type"] = "application/json" }
    for k, v in pairs(extra) do h[k] = v end
    return h
  end
  requests = {
    wrk.format("POST", "/v1/predict", headers({ Authorization = "Bearer " .. key }), read("predict.json")),
    wrk.format("POST", "/hexes/score", headers({ ["X-API-Key"] = key }), read("score.json")),
    wrk.format("POST", "/hexes/lookup", headers({ ["X-API-Key"] = key }), read("lookup.json")),
    wrk.format("POST", "/route", headers({ ["X-API-Key"] = key }), read("route.json")),
    wrk.format("GET", "/hexes/all?west=-79.45&south=43.62&east=-79.35&north=43.70", { ["X-API-Key"] = key }),
  }
end

function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
