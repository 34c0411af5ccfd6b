-- workload.lua -- the real-program benchmark's work (run.sh): text made
-- up, split into words, counted, sorted and formatted, with lua's string,
-- table and math libraries (many short calls of C functions, as a script
-- does), and a sieve in plain Lua (none).  Deterministic; prints a
-- checksum.  usage: lua workload.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 20
local syllables = { "ka", "lo", "mi", "tra", "ce", "re", "gion", "en", "ter" }
local byte, char, fmt, sub = string.byte, string.char, string.format, string.sub
local concat, insert, sort = table.concat, table.insert, table.sort
local floor, max = math.floor, math.max

local function make_text(seed, words)
	local out = {}
	for i = 1, words do
		seed = (seed * 1103515245 + 12345) % 2147483648
		local w = syllables[seed % #syllables + 1] ..
			syllables[floor(seed / 16) % #syllables + 1]
		insert(out, w)
	end
	return concat(out, " ")
end

local function count_primes(n)
	local composite, found = {}, 0
	for i = 2, n do
		if not composite[i] then
			found = found + 1
			for j = i * i, n, i do composite[j] = true end
		end
	end
	return found
end

local sum = 0
for r = 1, rounds do
	sum = sum + count_primes(50000 + r)
	local counts, words = {}, {}
	for w in make_text(r, 4000):gmatch("%a+") do
		if not counts[w] then insert(words, w) end
		counts[w] = (counts[w] or 0) + 1
	end
	sort(words, function(a, b) return counts[a] > counts[b] or
		(counts[a] == counts[b] and a < b) end)
	for i, w in ipairs(words) do
		local line = fmt("%3d %-12s %5d", i, w, counts[w])
		sum = (sum + byte(line, #line) + max(#sub(line, 1, 4), 1)) % 1000003
	end
	sum = (sum + #char(65 + r % 26)) % 1000003
end
print(sum)
