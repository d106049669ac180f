package keys

var intStrategy = identityStrategy("int", "integer identity sequence", AsInt)
