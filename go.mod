module github.com/tsstore/tsstore

go 1.26.0

require (
	github.com/fhs/go-netcdf v1.2.1
	github.com/mattn/go-sqlite3 v1.14.53
)
