package rules

import "testing"

func TestServiceAttachment(t *testing.T) {
	const base = `"name": "psc", "targetService": "regions/r/forwardingRules/ilb", "natSubnets": ["regions/r/subnetworks/psc"]`
	checkCases(t, ServiceAttachment, []struct{ name, body, want, field string }{
		{name: "automatic", body: `{` + base + `, "connectionPreference": "ACCEPT_AUTOMATIC", "enableProxyProtocol": false}`},
		{name: "manual", body: `{` + base + `, "connectionPreference": "ACCEPT_MANUAL", "consumerAcceptLists": [{"projectIdOrNum": "consumer", "connectionLimit": 4}],
			"consumerRejectLists": ["bad-project"]}`},

		{name: "no target", body: `{"name": "psc", "natSubnets": ["s"], "connectionPreference": "ACCEPT_AUTOMATIC"}`, field: "targetService",
			want: "targetService is required: the forwarding rule of the internal load balancer the attachment publishes."},
		{name: "no subnets", body: `{"name": "psc", "targetService": "t", "connectionPreference": "ACCEPT_AUTOMATIC"}`, field: "natSubnets",
			want: "natSubnets is required: at least one subnetwork of purpose PRIVATE_SERVICE_CONNECT, whose addresses consumers' connections are translated to."},
		{name: "no preference", body: `{` + base + `}`, field: "connectionPreference",
			want: "connectionPreference is required: ACCEPT_AUTOMATIC (every consumer) or ACCEPT_MANUAL (those of consumerAcceptLists)."},
		{name: "empty consumer", body: `{` + base + `, "connectionPreference": "ACCEPT_MANUAL", "consumerAcceptLists": [{"connectionLimit": 4}]}`, field: "consumerAcceptLists[0]",
			want: "consumerAcceptLists[0] must name one consumer: a projectIdOrNum, a networkUrl or an endpointUrl."},
		{name: "mixed consumers", body: `{` + base + `, "connectionPreference": "ACCEPT_MANUAL", "consumerAcceptLists": [{"projectIdOrNum": "a"}, {"networkUrl": "n"}]}`,
			field: "consumerAcceptLists[1].networkUrl", want: "consumerAcceptLists[1].networkUrl is set, but consumerAcceptLists[0] named a projectIdOrNum: an attachment's consumers are all projects, all networks or all endpoints."},
	})
}
