-- Gathers a record to write for a job key.
local function gather_record(w, jobkey, record)
  local records = w.records
  records[#records + 1] = jobkey
  records[#records + 1] = record
end
