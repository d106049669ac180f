package keys

var uuidv6Strategy = gregorian("uuidv6", "RFC 9562 version 6: version 1's timestamp reordered most significant bits first", "time-ordered", putV6)

func putV6(dst []byte, ts uint64, seq uint16, node *[6]byte) {
	hi := uint32(ts >> 28)
	mid := uint16(ts >> 12)
	lo := uint16(ts)&0x0fff | 0x6000
	dst[0], dst[1], dst[2], dst[3] = byte(hi>>24), byte(hi>>16), byte(hi>>8), byte(hi)
	dst[4], dst[5] = byte(mid>>8), byte(mid)
	dst[6], dst[7] = byte(lo>>8), byte(lo)
	putClockSeqNode(dst, seq, node)
}
