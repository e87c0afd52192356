-- wrk script for bench/run.sh: `wrk ... -s bench/wrk.lua URL -- TOKEN METHOD BODY [IDS]`.
-- Sends the bearer token (the floor ignores it), an optional JSON body, and prints one JSON line.
-- BODY may hold alternatives separated by `||`, and IDS a comma-separated list of ids: each request then
-- takes a random alternative and puts a random id in place of the URL's last numeric path segment (so
-- writes spread over many rows instead of queueing on one row's lock).
local token, method, bodies, ids = "", "GET", {}, {}

function init(args)
  token = args[1] or ""
  method = args[2] or "GET"
  for b in string.gmatch(args[3] or "", "([^|]+)") do table.insert(bodies, b) end
  for id in string.gmatch(args[4] or "", "([^,]+)") do table.insert(ids, id) end
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
  local headers = { ["Authorization"] = "Bearer " .. token, ["Accept-Encoding"] = "identity" }
  local body = nil
  if #bodies > 0 then
    body = bodies[math.random(#bodies)]
    headers["Content-Type"] = "application/json"
  end
  local path = nil
  if #ids > 0 then path = wrk.path:gsub("/%d+/$", "/" .. ids[math.random(#ids)] .. "/") end
  return wrk.format(method, path, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nRESULT {"requests":%d,"seconds":%.3f,"p50_ms":%.3f,"p99_ms":%.3f,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
