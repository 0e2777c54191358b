-- wrk script: POST the JSON body in the file named by BODY_FILE with the key in KEY,
-- as a bearer token, or as X-API-Key when KEY_HEADER is "x-api-key" (router API).
local f = assert(io.open(os.getenv("BODY_FILE"), "r"))
wrk.body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if os.getenv("KEY_HEADER") == "x-api-key" then
  wrk.headers["X-API-Key"] = os.getenv("KEY")
else
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body:sub(1, 200) .. "\n")
  end
end
