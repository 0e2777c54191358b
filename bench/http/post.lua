-- wrk script: POST the JSON body in the file named by BODY_FILE with the bearer key in KEY.
local f = assert(io.open(os.getenv("BODY_FILE"), "r"))
wrk.body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body:sub(1, 200) .. "\n")
  end
end
