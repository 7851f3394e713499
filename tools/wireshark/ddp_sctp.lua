-- Wireshark dissector for DDP over SCTP (RFC 5043, RFC 6581 §7), as libddp
-- sends it (RFC 5043 §3, RFC 6581 §7; docs/design.md).
--
--   SCTP PPID 16  DDP Segment Chunk:  DDP-SSN(16) | DDP segment (RFC 5041)
--                 the DDP segment goes to Wireshark's own "iwarp_ddp_rdmap"
--                 dissector (the one MPA uses).
--   SCTP PPID 17  DDP Stream Session Control:
--                 DDP-SSN(16) | Function Code(16) | Private Data (0..512)
--                 codes 5/6 (RFC 6581 Enhanced Initiate/Accept) start the
--                 private data with the MPA IRD/ORD word
--                 A B IRD(14) | C D ORD(14) (bit 0 = most significant).
--
-- libddp runs SCTP over UDP port 9899 (RFC 6951), so tell Wireshark:
--   tshark -r x.pcap -X lua_script:tools/wireshark/ddp_sctp.lua \
--          -d udp.port==9899,sctp -V
-- Display filters: ddp_sctp, ddp_sctp.ssn, ddp_sctp.fcode == 1,
-- ddp_sctp.ird, ddp_sctp.pd_len, ... (tshark -G fields | grep ddp_sctp).

local ddp_sctp = Proto("ddp_sctp", "DDP over SCTP (RFC 5043)")
-- PPID 17 needs its own dissector entry; its tree items belong to ddp_sctp
-- so that the filter "ddp_sctp" matches both kinds of chunk.
local ddp_sctp_ctl = Proto("ddp_sctp_ctl", "DDP Stream Session Control (RFC 5043)")

local PPID_SEGMENT = 16
local PPID_CONTROL = 17
local MAX_PD = 512 -- RFC 5043 §5.2.3

local fcodes = {
	[0x0001] = "DDP Stream Session Initiate",
	[0x0002] = "DDP Stream Session Accept",
	[0x0003] = "DDP Stream Session Reject",
	[0x0004] = "DDP Stream Session Terminate",
	[0x0005] = "Enhanced DDP Stream Session Initiate",
	[0x0006] = "Enhanced DDP Stream Session Accept",
	[0x0007] = "Enhanced DDP Stream Session Reject",
	[0xFFFF] = "Reserved (experimental)",
}
local short = {
	[1] = "Initiate", [2] = "Accept", [3] = "Reject", [4] = "Terminate",
	[5] = "Enhanced Initiate", [6] = "Enhanced Accept", [7] = "Enhanced Reject",
}

local f = ddp_sctp.fields
f.ssn = ProtoField.uint16("ddp_sctp.ssn", "DDP-SSN", base.DEC, nil, nil,
	"DDP Source Sequence Number (RFC 5043 §5.2.1)")
f.kind = ProtoField.string("ddp_sctp.kind", "Chunk kind")
f.fcode = ProtoField.uint16("ddp_sctp.fcode", "Function Code", base.HEX, fcodes)
f.ird_ord = ProtoField.uint32("ddp_sctp.ird_ord", "IRD/ORD word", base.HEX, nil, nil,
	"RFC 6581 §7: A B IRD | C D ORD")
f.a = ProtoField.bool("ddp_sctp.ird_ord.a", "A: peer-to-peer model", 32, nil, 0x80000000)
f.b = ProtoField.bool("ddp_sctp.ird_ord.b", "B: zero-length Send RTR", 32, nil, 0x40000000)
f.ird = ProtoField.uint32("ddp_sctp.ird", "IRD", base.DEC, nil, 0x3FFF0000)
f.c = ProtoField.bool("ddp_sctp.ird_ord.c", "C: zero-length RDMA Write RTR", 32, nil, 0x00008000)
f.d = ProtoField.bool("ddp_sctp.ird_ord.d", "D: zero-length RDMA Read RTR", 32, nil, 0x00004000)
f.ord = ProtoField.uint32("ddp_sctp.ord", "ORD", base.DEC, nil, 0x00003FFF)
f.pd_len = ProtoField.uint16("ddp_sctp.pd_len", "Private data length", base.DEC, nil, nil,
	"ULP private data octets (SCTP user message length - 4, minus the IRD/ORD word)")
f.pd = ProtoField.bytes("ddp_sctp.pd", "Private data")
f.segment = ProtoField.bytes("ddp_sctp.segment", "DDP segment")

local e = {
	short = ProtoExpert.new("ddp_sctp.short", "Message too short",
		expert.group.MALFORMED, expert.severity.ERROR),
	pd_long = ProtoExpert.new("ddp_sctp.pd_long", "Private data longer than 512 octets",
		expert.group.PROTOCOL, expert.severity.WARN),
	term_pd = ProtoExpert.new("ddp_sctp.term_pd",
		"Terminate MUST NOT carry private data (RFC 5043 §5.2.3)",
		expert.group.PROTOCOL, expert.severity.WARN),
	no_ird_ord = ProtoExpert.new("ddp_sctp.no_ird_ord",
		"Enhanced Initiate/Accept without the IRD/ORD word (RFC 6581 §7)",
		expert.group.MALFORMED, expert.severity.ERROR),
	code = ProtoExpert.new("ddp_sctp.unknown_code", "Unassigned function code",
		expert.group.PROTOCOL, expert.severity.WARN),
}
ddp_sctp.experts = { e.short, e.pd_long, e.term_pd, e.no_ird_ord, e.code }

-- RFC 6581 leaves open whether Enhanced Reject (7) carries the IRD/ORD word;
-- libddp does not put it there (ULP data only), so the default is off.
ddp_sctp.prefs.reject_ird_ord = Pref.bool("Enhanced Reject carries IRD/ORD", false,
	"Decode the first 4 private-data octets of an Enhanced Reject (code 7) "
	.. "as the RFC 6581 IRD/ORD word")

local rdmap_ok, rdmap = pcall(Dissector.get, "iwarp_ddp_rdmap")
local data = Dissector.get("data")

local function set_cols(pinfo, text)
	pinfo.cols.protocol:set("DDP/SCTP")
	pinfo.cols.info:append(" " .. text)
end

-- PPID 16: DDP-SSN, then the DDP segment itself.
function ddp_sctp.dissector(tvb, pinfo, tree)
	local len = tvb:captured_len()
	local t = tree:add(ddp_sctp, tvb(), "DDP over SCTP, DDP Segment Chunk")
	t:add(f.kind, "DDP Segment (PPID 16)"):set_generated()
	if len < 2 then
		t:add_proto_expert_info(e.short, "DDP Segment Chunk shorter than its DDP-SSN")
		return len
	end
	local ssn = tvb(0, 2):uint()
	t:add(f.ssn, tvb(0, 2))
	t:append_text(", DDP-SSN " .. ssn)
	pinfo.cols.protocol:set("DDP/SCTP")
	if len == 2 then
		t:add_proto_expert_info(e.short, "no DDP segment after the DDP-SSN")
		return len
	end
	t:add(f.segment, tvb(2)):set_hidden()
	-- a malformed DDP segment raises an error in the DDP dissector (it
	-- marks the packet); still finish our columns, which it rewrote
	local sub = (rdmap_ok and rdmap) or data
	local ok = pcall(sub.call, sub, tvb(2):tvb(), pinfo, tree)
	set_cols(pinfo, "[DDP-SSN " .. ssn .. (ok and "]" or ", malformed DDP segment]"))
	return len
end

local function add_ird_ord(t, tvb)
	local w = t:add(f.ird_ord, tvb(0, 4))
	w:add(f.a, tvb(0, 4))
	w:add(f.b, tvb(0, 4))
	local ird = w:add(f.ird, tvb(0, 4))
	w:add(f.c, tvb(0, 4))
	w:add(f.d, tvb(0, 4))
	local ord = w:add(f.ord, tvb(0, 4))
	local v = tvb(0, 4):uint()
	local irdv, ordv = bit.band(bit.rshift(v, 16), 0x3FFF), bit.band(v, 0x3FFF)
	if irdv == 0x3FFF then ird:append_text(" (no automatic negotiation)") end
	if ordv == 0x3FFF then ord:append_text(" (no automatic negotiation)") end
	return irdv, ordv
end

-- PPID 17: DDP-SSN, function code, [IRD/ORD word], private data.
function ddp_sctp_ctl.dissector(tvb, pinfo, tree)
	local len = tvb:captured_len()
	local t = tree:add(ddp_sctp, tvb(), "DDP over SCTP, DDP Stream Session Control")
	t:add(f.kind, "DDP Stream Session Control (PPID 17)"):set_generated()
	if len < 4 then
		if len >= 2 then t:add(f.ssn, tvb(0, 2)) end
		t:add_proto_expert_info(e.short, "control message shorter than 4 octets")
		set_cols(pinfo, "[malformed session control]")
		return len
	end
	local ssn, code = tvb(0, 2):uint(), tvb(2, 2):uint()
	t:add(f.ssn, tvb(0, 2))
	local ci = t:add(f.fcode, tvb(2, 2))
	if not fcodes[code] then ci:add_proto_expert_info(e.code) end
	local name = short[code] or string.format("code 0x%04x", code)
	t:append_text(", " .. name .. ", DDP-SSN " .. ssn)

	local off = 4
	local extra = ""
	local enh_word = code == 5 or code == 6 or
		(code == 7 and ddp_sctp.prefs.reject_ird_ord)
	if enh_word then
		if len - off < 4 then
			t:add_proto_expert_info(e.no_ird_ord)
		else
			local ird, ord = add_ird_ord(t, tvb(off, 4):tvb())
			extra = string.format(" IRD %d ORD %d", ird, ord)
			off = off + 4
		end
	end
	local pdl = len - off
	t:add(f.pd_len, pdl):set_generated()
	if pdl > 0 then t:add(f.pd, tvb(off, pdl)) end
	if code == 4 and pdl > 0 then t:add_proto_expert_info(e.term_pd) end
	if len - 4 > MAX_PD then t:add_proto_expert_info(e.pd_long) end
	set_cols(pinfo, string.format("[%s DDP-SSN %d%s PD %d]", name, ssn, extra, pdl))
	return len
end

local ppi = DissectorTable.get("sctp.ppi")
ppi:add(PPID_SEGMENT, ddp_sctp)
ppi:add(PPID_CONTROL, ddp_sctp_ctl)
