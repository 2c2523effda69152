// File: engine/api/json_insights.h
//
// DynamoDB JSON <-> the Contributor Insights requests of dynarock/requests.h.

#ifndef DYNAROCK_API_JSON_INSIGHTS_H_
#define DYNAROCK_API_JSON_INSIGHTS_H_

#include <string>
#include <string_view>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::api {

StatusOr<DescribeContributorInsightsRequest> DecodeDescribeContributorInsightsRequest(std::string_view body);
StatusOr<ListContributorInsightsRequest> DecodeListContributorInsightsRequest(std::string_view body);
StatusOr<UpdateContributorInsightsRequest> DecodeUpdateContributorInsightsRequest(std::string_view body);

// `top`, when not empty, is written as the "DynarockTopContributors" member
// (engine/api/contributor_insights.h): JSON of an array, as it is.
std::string EncodeDescribeContributorInsightsResponse(const DescribeContributorInsightsResponse& r,
                                                      std::string_view top = {});
std::string EncodeListContributorInsightsResponse(const ListContributorInsightsResponse& r);
std::string EncodeUpdateContributorInsightsResponse(const UpdateContributorInsightsResponse& r);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_INSIGHTS_H_
