-- wrk script: GET with the key in KEY as a bearer token (the benchmark's key gate route).
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body:sub(1, 200) .. "\n")
  end
end
