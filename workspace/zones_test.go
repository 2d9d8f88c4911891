package workspace

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
)

// Every zone a person can pick loads on any machine (the tz database is
// embedded), and is named with its city and its offset on that day.
func TestTimeZonesAreIANAZonesWithTheirOffsets(t *testing.T) {
	winter := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	zones := TimeZones(winter)
	if len(zones) != len(zoneNames) || len(zones) < 400 {
		t.Fatalf("%d zones listed of %d names", len(zones), len(zoneNames))
	}
	byName := map[string]string{}
	for _, z := range zones {
		byName[z.Name] = z.Label
	}
	for name, want := range map[string]string{
		"America/Los_Angeles":            "Los Angeles (America), UTC−08:00",
		"Europe/Paris":                   "Paris (Europe), UTC+01:00",
		"Asia/Kolkata":                   "Kolkata (Asia), UTC+05:30",
		"America/Argentina/Buenos_Aires": "Buenos Aires (America), UTC−03:00",
		"UTC":                            "UTC+00:00",
	} {
		if diff := cmp.Diff(want, byName[name]); diff != "" {
			t.Errorf("%s label mismatch (-want +got):\n%s", name, diff)
		}
	}
	summer := TimeZones(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	for _, z := range summer {
		if z.Name == "America/Los_Angeles" && !strings.HasSuffix(z.Label, "UTC−07:00") {
			t.Errorf("in July Los Angeles is %q, want daylight saving time's UTC−07:00", z.Label)
		}
	}
}

// A name that is not a zone is refused with the zones the person surely
// meant, in words a person reads too (the settings page shows it).
func TestAnUnknownTimeZoneSuggestsTheOnesMeant(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for given, want := range map[string]string{
		"Pacific":  `The time zone "Pacific" is not one we know. Did you mean America/Los_Angeles (UTC−08:00)? A time zone is named by a region and a city, such as Europe/Paris.`,
		"new york": `The time zone "new york" is not one we know. Did you mean America/New_York (UTC−05:00)? A time zone is named by a region and a city, such as Europe/Paris.`,
		"Qwerty":   `The time zone "Qwerty" is not one we know: a time zone is named by a region and a city, such as Europe/Paris or America/New_York.`,
	} {
		c := SenderChange{TimeZone: &given}
		err := c.check(now)
		if diff := cmp.Diff(want, vibesell.ErrorMessage(err)); diff != "" {
			t.Errorf("%q: refusal mismatch (-want +got):\n%s", given, diff)
		}
	}
}
