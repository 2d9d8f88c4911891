package web

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
)

// LeadsPath is the leads page: where a person uploads a CSV of leads and
// blocks addresses. import_leads hands out its address.
const LeadsPath = "/app/leads"

func (s *server) leadRoutes(mux *http.ServeMux) {
	if s.Audience == nil {
		return
	}
	mux.HandleFunc("GET "+LeadsPath, s.signedIn(s.leadsPage))
	mux.HandleFunc("POST "+LeadsPath+"/uploads", s.postFile(s.signedIn(s.storeUpload)))
	mux.HandleFunc("GET "+LeadsPath+"/uploads/{id}", s.signedIn(s.uploadPage))
	mux.HandleFunc("POST "+LeadsPath+"/uploads/{id}/sheet", s.post(s.signedIn(s.readSheet)))
	mux.HandleFunc("POST "+LeadsPath+"/uploads/{id}/check", s.post(s.signedIn(s.checkUpload)))
	mux.HandleFunc("POST "+LeadsPath+"/uploads/{id}/import", s.post(s.signedIn(s.importUpload)))
	mux.HandleFunc("POST "+LeadsPath+"/suppressions", s.post(s.signedIn(s.suppress)))
}

// postFile is post for the upload form: the same origin checks, a body as
// large as a file may be, read as multipart.
func (s *server) postFile(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.cop.Check(r); err != nil {
			s.renderError(w, r, nil, http.StatusForbidden, "Request refused",
				"This form was sent from another site, so it was not accepted. Open the page in VibeSell and try again.")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != s.origin {
			s.renderError(w, r, nil, http.StatusForbidden, "Request refused", "This form was sent from another site, so it was not accepted.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, audience.MaxUploadBytes+1<<20)
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			s.renderError(w, r, nil, http.StatusRequestEntityTooLarge, "File not accepted",
				fmt.Sprintf("The file could not be read: files of up to %d MB can be uploaded. Split a bigger file and upload each part.", audience.MaxUploadBytes>>20))
			return
		}
		next(w, r)
	}
}

type leadsData struct {
	UploadPath, SuppressPath string
	MaxMB                    int
	LastImport               *audience.Import
	ImportPath               string // the approval the last import carries out
	ImportStarted            string
	// Skipped says what the last import left out, each with its count.
	Skipped string
	List    leadList // every lead, a page at a time (lead.go)
}

func (s *server) leadsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.showLeads(w, r, u, ses, http.StatusOK, "", "")
}

func (s *server) showLeads(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message, notice string) {
	last, err := s.Audience.LastImport(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := leadsData{UploadPath: LeadsPath + "/uploads", SuppressPath: LeadsPath + "/suppressions", MaxMB: audience.MaxUploadBytes >> 20, LastImport: last}
	if d.List, err = s.leadList(r, u); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	refresh := 0
	if last != nil {
		d.ImportPath, d.ImportStarted = approvals.AppPath(last.ApprovalID), formatTime(last.StartedAt, u.TimeZone)
		d.Skipped = vibesell.JoinAnd(last.Skipped())
		if last.FinishedAt == nil {
			refresh = 2 // the page follows a running import by itself
		}
	}
	s.render(w, r, status, "leads", pageData{Title: "Leads", User: &u, CSRF: ses.CSRF(), Message: message, Notice: notice, Refresh: refresh, Body: d})
}

func (s *server) storeUpload(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	f, h, err := r.FormFile("file")
	if err != nil {
		s.showLeads(w, r, u, ses, http.StatusUnprocessableEntity, "Choose a file to upload.", "")
		return
	}
	defer f.Close()
	// The part's size is known (and bounded by postFile's reader): one
	// buffer of that size, not ReadAll's doublings.
	content := make([]byte, h.Size)
	if _, err := io.ReadFull(f, content); err != nil {
		s.renderError(w, r, fmt.Errorf("read uploaded file: %w", err), 0, "", "")
		return
	}
	up, err := s.Audience.StoreUpload(r.Context(), u.WorkspaceID, h.Filename, content)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.showLeads(w, r, u, ses, http.StatusUnprocessableEntity, vibesell.ErrorForPerson(err), "")
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, LeadsPath+"/uploads/"+up.ID, http.StatusSeeOther)
}

type uploadColumn struct {
	Index  int
	Name   string
	Chosen string
}

// previewCellChars bounds a cell of the first rows shown: enough to
// tell what a column holds.
const previewCellChars = 120

type uploadData struct {
	U          audience.Upload
	Rows       [][]string // the first rows, each cell cut to previewCellChars
	Columns    []uploadColumn
	Fields     []string
	Uploaded   string
	Checked    string
	SheetPath  string // where another sheet of a workbook is chosen
	CheckPath  string
	ImportPath string
	Importable bool
	// MailServersChecked: the list check asks the DNS for each domain's
	// mail servers (not in the sandbox without a DNS server).
	MailServersChecked bool
	// Unanswered says how many domains the list check could not look up.
	Unanswered string
}

func (s *server) uploadPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.showUpload(w, r, u, ses, http.StatusOK, "", r.URL.Query().Get("checked") == "1")
}

func (s *server) showUpload(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message string, justChecked bool) {
	up, err := s.Audience.Upload(r.Context(), u.WorkspaceID, r.PathValue("id"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	mapping := up.Mapping
	if mapping == nil {
		mapping = up.Suggested
	}
	d := uploadData{U: up, Fields: audience.LeadFields, Uploaded: formatTime(up.UploadedAt, u.TimeZone),
		SheetPath: LeadsPath + "/uploads/" + up.ID + "/sheet", CheckPath: LeadsPath + "/uploads/" + up.ID + "/check", ImportPath: LeadsPath + "/uploads/" + up.ID + "/import",
		Importable: up.Checked() && up.Valid > 0}
	for i, h := range up.Header {
		d.Columns = append(d.Columns, uploadColumn{Index: i, Name: h, Chosen: mapping[i]})
	}
	for _, row := range up.FirstRows {
		cells := make([]string, 0, len(row))
		for _, c := range row {
			if r := []rune(c); len(r) > previewCellChars {
				c = string(r[:previewCellChars-1]) + "…"
			}
			cells = append(cells, c)
		}
		d.Rows = append(d.Rows, cells)
	}
	d.MailServersChecked = s.Audience.LooksUpMailServers()
	if up.CheckedAt != nil {
		d.Checked = formatTime(*up.CheckedAt, u.TimeZone)
	}
	if n := up.UnansweredDomains; n > 0 {
		d.Unanswered = "1 domain was not looked up (the DNS failed or did not answer in time), so its rows are not flagged for mail servers. Checking the file again asks once more."
		if n > 1 {
			d.Unanswered = vibesell.Count(n) + " domains were not looked up (the DNS failed or did not answer in time), so their rows are not flagged for mail servers. Checking the file again asks once more."
		}
	}
	notice := ""
	if justChecked {
		notice = "Checked. The rows that cannot be imported, and those flagged by the list check, are listed below with their line numbers."
	}
	s.render(w, r, status, "upload", pageData{Title: up.FileName, User: &u, CSRF: ses.CSRF(), Message: message, Notice: notice, Body: d})
}

func (s *server) checkUpload(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	up, err := s.Audience.Upload(r.Context(), u.WorkspaceID, r.PathValue("id"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	mapping := make([]string, len(up.Header))
	for i := range mapping {
		mapping[i] = r.PostFormValue(fmt.Sprintf("col%d", i))
	}
	_, err = s.Audience.CheckUpload(r.Context(), u.WorkspaceID, up.ID, mapping)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.showUpload(w, r, u, ses, http.StatusUnprocessableEntity, vibesell.ErrorForPerson(err), false)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, LeadsPath+"/uploads/"+up.ID+"?checked=1", http.StatusSeeOther)
}

// readSheet reads the sheet chosen of an uploaded workbook in place of
// the one shown.
func (s *server) readSheet(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	sheet, err := strconv.Atoi(r.PostFormValue("sheet"))
	if err != nil {
		s.showUpload(w, r, u, ses, http.StatusUnprocessableEntity, "Choose one of the workbook's sheets.", false)
		return
	}
	_, err = s.Audience.ReadSheet(r.Context(), u.WorkspaceID, r.PathValue("id"), sheet)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.showUpload(w, r, u, ses, http.StatusUnprocessableEntity, vibesell.ErrorForPerson(err), false)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, LeadsPath+"/uploads/"+r.PathValue("id"), http.StatusSeeOther)
}

// importUpload asks for the approval to import the upload, and shows it:
// the person approves it there, as any other.
func (s *server) importUpload(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	// The flagged rows are skipped unless the person chose to keep them:
	// the choice is part of the approval.
	a, _, err := s.Audience.RequestImport(r.Context(), u.WorkspaceID, audience.ImportRequest{
		Upload: r.PathValue("id"), KeepFlagged: r.PostFormValue("flagged") == "keep", RequestedBy: u.Email, RequestedVia: approvals.ViaWeb})
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.showUpload(w, r, u, ses, http.StatusUnprocessableEntity, vibesell.ErrorForPerson(err), false)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/approvals/"+a.ID, http.StatusSeeOther)
}

func (s *server) suppress(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	entries := strings.FieldsFunc(r.PostFormValue("entries"), func(c rune) bool { return c == '\n' || c == ',' || c == ' ' || c == '\r' || c == '\t' })
	if len(entries) == 0 {
		s.showLeads(w, r, u, ses, http.StatusUnprocessableEntity, "Write at least one address or domain to block.", "")
		return
	}
	got, err := s.Audience.Suppress(r.Context(), u.WorkspaceID, entries, audience.ReasonManual)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.showLeads(w, r, u, ses, http.StatusUnprocessableEntity, vibesell.ErrorForPerson(err), "")
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	var parts []string
	if n := len(got.Addresses); n > 0 {
		parts = append(parts, vibesell.Plural(n, "address", "addresses"))
	}
	if n := len(got.Domains); n > 0 {
		parts = append(parts, vibesell.Plural(n, "whole domain", "whole domains"))
	}
	notice := "Blocked " + vibesell.JoinAnd(parts) + ". No import will ever bring them back, and nothing will be sent to them."
	if len(parts) == 0 {
		notice = "These were already blocked."
	} else if len(got.Already) > 0 {
		notice += " " + vibesell.Plural(len(got.Already), "entry was", "entries were") + " already blocked."
	}
	s.showLeads(w, r, u, ses, http.StatusOK, "", notice)
}
