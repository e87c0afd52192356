-- wrk script for bench/run.sh: `wrk ... -s bench/wrk.lua URL -- TOKEN METHOD BODY`.
-- Sends the bearer token (the floor ignores it), an optional JSON body, and prints one JSON line.
local token, method, body = "", "GET", nil

function init(args)
  token = args[1] or ""
  method = args[2] or "GET"
  body = args[3]
  if body == "" then body = nil end
end

function request()
  local headers = { ["Authorization"] = "Bearer " .. token, ["Accept-Encoding"] = "identity" }
  if body then headers["Content-Type"] = "application/json" end
  return wrk.format(method, nil, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nRESULT {"requests":%d,"seconds":%.3f,"p50_ms":%.3f,"p99_ms":%.3f,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
