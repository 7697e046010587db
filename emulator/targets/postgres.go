package targets

import (
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// postgresServer speaks PostgreSQL's wire protocol (pgproto3, pgx's own
// codec) as far as a health check needs: it logs in any user without a
// password (TLS is refused, so clients go on in plain text) and answers
// each simple query with one row, 1. In reject mode the login fails with
// 28P01; in wrong-body mode queries return no row.
type postgresServer struct{ st *state }

func (s *postgresServer) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go s.session(c)
	}
}

func (s *postgresServer) session(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(tcpConnLife)) //nolint:errcheck // a fresh connection
	be := pgproto3.NewBackend(c, c)
	var startup *pgproto3.StartupMessage
	for startup == nil {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := c.Write([]byte("N")); err != nil {
				return
			}
		case *pgproto3.StartupMessage:
			startup = m
		default:
			return
		}
	}
	s.st.probes.Add(1)
	if s.st.mode() == ModeReject {
		be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01",
			Message: `password authentication failed for user "` + startup.Parameters["user"] + `"`})
		be.Flush() //nolint:errcheck // closing anyway
		return
	}
	be.Send(&pgproto3.AuthenticationOk{})
	for _, p := range [][2]string{{"server_version", "16.0 (lbhealth target)"}, {"client_encoding", "UTF8"},
		{"standard_conforming_strings", "on"}, {"DateStyle", "ISO, MDY"}} {
		be.Send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	for {
		msg, err := be.Receive()
		if err != nil {
			return
		}
		switch msg.(type) {
		case *pgproto3.Query:
			be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("?column?"), DataTypeOID: 23, DataTypeSize: 4}}})
			tag := "SELECT 0"
			if s.st.mode() != ModeWrongBody {
				be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte("1")}})
				tag = "SELECT 1"
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		case *pgproto3.Terminate:
			return
		default:
			be.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "0A000", Message: "lbhealth target answers simple queries only"})
		}
		be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		if be.Flush() != nil {
			return
		}
	}
}

func (s *postgresServer) setMode(Mode) {}
func (s *postgresServer) stop()        {}
