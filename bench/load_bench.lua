-- wrk script of bench/load_bench.py (see there). wrk -s bench/load_bench.lua URL -- MODE ARGS...
--
--   get  PATH DRAIN_AT                                   GET PATH until wrk's -d stops it
--   post PATH DRAIN_AT BODIES RUN_ID GET_PATH HEADER...  POST one body per request, round-robin
--        from the BODIES file (one JSON per line with the placeholder KEY), each with a fresh
--        submission key; from DRAIN_AT on (CLOCK_MONOTONIC seconds), GET GET_PATH instead, so
--        that when -d cuts the connections no POST is in flight: every POST sent is answered.
--
-- Each thread counts responses by status in its own Lua state; done() gathers them with
-- thread:get and prints one line "LOAD_BENCH_JSON {...}" for Python.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } load_bench_timespec;
int clock_gettime(int clk_id, load_bench_timespec *tp);
]]
local timespec = ffi.new("load_bench_timespec")
local function now()  -- CLOCK_MONOTONIC (1), the clock of Python's time.monotonic()
  ffi.C.clock_gettime(1, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) * 1e-9
end

local PLACEHOLDER = "00000000-0000-4000-8000-000000000000"
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  mode, path, drain_at = args[1], args[2], tonumber(args[3])
  counts, sent, answered, drained = {}, 0, 0, 0
  get_headers = {}
  if mode == "post" then
    local file, run = args[4], args[5]
    get_path = args[6]
    post_headers = {}
    for i = 7, #args do
      local name, value = args[i]:match("^([^:]+):%s*(.*)$")
      post_headers[name] = value
    end
    prefixes, suffixes = {}, {}
    for line in io.lines(file) do
      local at = line:find(PLACEHOLDER, 1, true)
      prefixes[#prefixes + 1] = line:sub(1, at - 1)
      suffixes[#suffixes + 1] = line:sub(at + #PLACEHOLDER)
    end
    -- A unique key per request: the run's random id, this thread, its request number.
    key_format = run:sub(1, 8) .. "-" .. run:sub(9, 12) .. "-4" .. run:sub(13, 15) .. "-8%03x-%012x"
    nth = (id - 1) * 7919  -- threads start at different bodies
  end
  -- wrk calls request() once in the first thread's state before any connection, to count
  -- pipelined requests: that one is never sent, so it must not count as sent.
  verifying = id == 1
end

function request()
  if verifying then
    verifying = false
    return wrk.format("GET", path, get_headers)
  end
  if mode == "post" then
    if now() < drain_at then
      sent = sent + 1
      nth = nth + 1
      local i = nth % #prefixes + 1
      local body = prefixes[i] .. string.format(key_format, id, sent) .. suffixes[i]
      return wrk.format("POST", path, post_headers, body)
    end
    drained = drained + 1
    return wrk.format("GET", get_path, get_headers)
  end
  return wrk.format("GET", path, get_headers)
end

function response(status, headers, body)
  -- In post mode the drain GETs answer {"status": ...}; the POSTs never do.
  if mode == "post" and body:sub(1, 10) == '{"status":' then
    return
  end
  local t = now()
  first = first or t
  last = t
  answered = answered + 1
  counts[status] = (counts[status] or 0) + 1
end

local function number(value)
  return value and string.format("%.6f", value) or "null"
end

function done(summary, latency, requests)
  local statuses, totals = {}, { sent = 0, answered = 0, drained = 0 }
  local first_all, last_all
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      statuses[status] = (statuses[status] or 0) + n
    end
    for name in pairs(totals) do
      totals[name] = totals[name] + thread:get(name)
    end
    local first, last = thread:get("first"), thread:get("last")
    if first and (not first_all or first < first_all) then first_all = first end
    if last and (not last_all or last > last_all) then last_all = last end
  end
  local parts = {}
  for status, n in pairs(statuses) do
    parts[#parts + 1] = string.format('"%d": %d', status, n)
  end
  local e = summary.errors
  io.write(string.format(
    'LOAD_BENCH_JSON {"statuses": {%s}, "sent": %d, "answered": %d, "drained": %d, "first": %s, ' ..
    '"last": %s, "errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d, "status": %d}, ' ..
    '"requests": %d, "duration_us": %d, "latency_p50_ms": %.2f, "latency_p99_ms": %.2f}\n',
    table.concat(parts, ", "), totals.sent, totals.answered, totals.drained, number(first_all),
    number(last_all), e.connect, e.read, e.write, e.timeout, e.status, summary.requests,
    summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
