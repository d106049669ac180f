package results

// Question is one of the questions a preset asks and answers from its own
// cells: the keys it compares, and in which tasks, each with the figures
// shown beside the rates (the directions the physics makes certain: WAL
// per row, blocks per query, an expiry's time). Its verdict reads the
// comparisons the rounds made between those keys in each task; a preset
// with questions is read through them first.
type Question struct {
	Ask   string         `json:"ask"`
	Keys  []string       `json:"keys"`
	Parts []QuestionPart `json:"parts"`
}

// QuestionPart is a task a question reads, with the figures shown beside
// its rates: headers of the task's own columns (its Kind's) or of the
// figures every cell records (their collectors declare their headers:
// metrics.Figures).
type QuestionPart struct {
	Task    string   `json:"task"`
	Figures []string `json:"figures,omitempty"`
}
