package keys

func init() {
	Register(identityStrategy("int", "integer identity sequence", AsInt))
}
