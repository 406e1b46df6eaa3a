
	graphs-11b*