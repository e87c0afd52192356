-- wrk script for bench/run.sh: `wrk ... -s bench/wrk.lua URL -- TOKEN METHOD BODY [IDS] [CONTENT_TYPE]`.
-- Sends the bearer token (the floor ignores it; `cookie:NAME=VALUE` sends that cookie instead, for the web
-- pages), an optional body (JSON unless CONTENT_TYPE says otherwise;
-- `@path` sends the file at path), and prints one JSON line.
-- BODY may hold alternatives separated by `||`, and IDS a comma-separated list of ids (`@path`: in that file): each request then
-- takes a random alternative and puts a random id in place of the URL's first numeric path segment (so
-- writes spread over many rows instead of queueing on one row's lock).
local token, method, bodies, ids, content_type = "", "GET", {}, {}, "application/json"

function init(args)
  token = args[1] or ""
  method = args[2] or "GET"
  local body = args[3] or ""
  if string.sub(body, 1, 1) == "@" then
    local file = assert(io.open(string.sub(body, 2), "rb"))
    table.insert(bodies, file:read("*a"))
    file:close()
  else
    for b in string.gmatch(body, "([^|]+)") do table.insert(bodies, b) end
  end
  local list = args[4] or ""
  -- `@path`: the ids are in that file (twenty thousand seven-digit ids are over one argument's limit).
  if string.sub(list, 1, 1) == "@" then
    local file = assert(io.open(string.sub(list, 2), "rb"))
    list = file:read("*a")
    file:close()
  end
  for id in string.gmatch(list, "([^,%s]+)") do table.insert(ids, id) end
  if args[5] and args[5] ~= "" then content_type = args[5] end
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
  local headers = { ["Accept-Encoding"] = "identity" }
  if string.sub(token, 1, 7) == "cookie:" then
    headers["Cookie"] = string.sub(token, 8)
  else
    headers["Authorization"] = "Bearer " .. token
  end
  local body = nil
  if #bodies > 0 then
    body = bodies[math.random(#bodies)]
    headers["Content-Type"] = content_type
  end
  local path = nil
  if #ids > 0 then path = wrk.path:gsub("/%d+/", "/" .. ids[math.random(#ids)] .. "/", 1) end
  return wrk.format(method, path, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nRESULT {"requests":%d,"seconds":%.3f,"p50_ms":%.3f,"p99_ms":%.3f,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
