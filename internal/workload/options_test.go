package workload
