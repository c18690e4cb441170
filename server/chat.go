package server

// Announce sends text to every player of every game, as a message from
// the server (the operator's announcement). (A stub until chat lands: it
// only logs.)
func (s *Server) Announce(text string) {
	s.log.Info("announcement", "text", text)
}
