package agones

import (
	"testing"
)

// FuzzReadAnswer: whatever a sidecar answers, reading it neither panics
// nor quotes more than a bounded part of it, and an answer other than
// 2xx is an error.
func FuzzReadAnswer(f *testing.F) {
	f.Add(200, []byte(`{"object_meta":{"name":"gs","labels":{"a":"b"}},"status":{"state":"Ready","ports":[{"name":"game","port":7042}]}}`))
	f.Add(503, []byte(`{"error": "not ready"}`))
	f.Add(200, []byte(`{"status":{"ports":[{"port":"7042"}]}}`))
	f.Add(200, []byte(`[`))
	f.Add(-1, []byte("\xff\x00"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		var gs GameServer
		err := readAnswer(status, body, &gs)
		if status/100 != 2 && err == nil {
			t.Fatalf("status %d: no error", status)
		}
		if err != nil && len(err.Error()) > 4*200+200 {
			t.Fatalf("an error of %d bytes", len(err.Error()))
		}
		if err := readAnswer(status, body, nil); (err == nil) != (status/100 == 2) {
			t.Fatalf("status %d with no answer wanted: %v", status, err)
		}
	})
}
