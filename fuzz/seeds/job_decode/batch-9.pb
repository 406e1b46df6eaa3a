
	torus-bigb(