module keybench-reference

go 1.26

require (
	github.com/gofrs/uuid/v5 v5.5.1
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
	github.com/sony/sonyflake v1.2.0
	go.jetify.com/typeid v1.3.0
	go.mongodb.org/mongo-driver v1.17.10
)
