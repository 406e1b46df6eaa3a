
	necklacesb
