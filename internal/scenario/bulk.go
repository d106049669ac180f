package scenario

import "time"

// The bulk preset: 000's and 003's loads, the primary key built before or after, the rate as the table grows.
func init() {
	register(&Scenario{
		Name:   "bulk",
		Order:  5,
		Kind:   Preset,
		Ask:    "How fast does each key load, its index built during the load or after? (000, 003)",
		Source: "000, 003",
		Description: "bulk loads (000, 003): 1M rows per key in 10 timed chunks, with the primary key in place and added afterwards; " +
			"bigint, uuidv7, uuidv6 (time first) and uuidv1 (time_low first) with timestamps 10 ms apart (keys made over 5.6 hours, " +
			"so that time_low wraps 46 times as in a loaded history), uuidv4; every key made by keybench and loaded by binary COPY",
		Defaults: Params{
			// Every key is made by keybench and loaded by binary COPY: a load's
			// keys come from the client, and one load path for all keys keeps
			// the comparison about the keys (the server's INSERT ... SELECT
			// path was 2-3x slower here whatever the key).
			Workload: "bulk,bulk-index-after", Keys: []string{"bigint:gen=client", "uuidv7:gen=client", "uuidv6:spacing=10000", "uuidv1:spacing=10000", "uuidv4:gen=client"},
			// 1M rows: at 2M the preset took 6.8 minutes here, 2.3 of them
			// uuidv4's load (15k rows/s once its index outgrew the cache).
			Clients: []int{1}, Rows: []int64{1_000_000}, Warmup: 0, Duration: time.Second, Payload: 32, Repeat: 1, Rounds: 1,
			Options: map[string]string{"chunk": "100000", "load-method": "copy"},
		},
		Quick: func(p *Params) {
			p.Keys, p.Rows, p.Options["chunk"] = []string{"bigint:gen=client", "uuidv4:gen=client"}, []int64{200_000}, "50000"
		},
		Settings:      embeddedDefaults,
		CacheRelative: true,
	})
}
