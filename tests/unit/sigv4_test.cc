// SigV4 verification: the hash primitives against FIPS 180-4 / RFC 4231 vectors,
// the signing steps against AWS's published examples (the SigV4 test suite's
// get-vanilla family, the IAM ListUsers walk-through, the S3 GetObject example,
// the documented signing-key derivation), a request signed by botocore, and the
// verifier's DynamoDB errors.

#include "engine/api/sigv4.h"

#include <gtest/gtest.h>

#include <ctime>

#include <string>
#include <vector>

namespace dynarock::api {
namespace {

// Seconds since the epoch of an ISO-8601 basic date ("20150830T123600Z").
int64_t EpochOf(const char* amz_date) {
  struct tm tm = {};
  strptime(amz_date, "%Y%m%dT%H%M%SZ", &tm);
  return static_cast<int64_t>(timegm(&tm));
}

// A verifier configuration whose clock stands at `amz_date` (the published
// examples are years old) and whose credential scope must name `service`.
AuthConfig TestConfig(std::vector<AccessKey> keys, std::string service, const char* amz_date) {
  AuthConfig c;
  c.keys = std::move(keys);
  c.service = std::move(service);
  const int64_t now = EpochOf(amz_date);
  c.now_seconds = [now] { return now; };
  return c;
}

constexpr char kBotoDate[] = "20240517T130130Z";

constexpr char kExampleSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string HmacHex(std::string_view key, std::string_view data) {
  return HexEncode(HmacSha256(key, data));
}

// ---- SHA-256 (FIPS 180-4 examples) ----

TEST(Sha256Test, FipsVectors) {
  EXPECT_EQ(Sha256Hex(""), kEmptyHash);
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  const std::string whole = Sha256Hex(data);
  // Every split point, including around the 55/56/64-byte padding boundaries.
  for (size_t split : {0, 1, 55, 56, 63, 64, 65, 119, 128, 999, 1000}) {
    Sha256 h;
    h.Update(std::string_view(data).substr(0, split));
    h.Update(std::string_view(data).substr(split));
    EXPECT_EQ(HexEncode(h.Final()), whole) << "split " << split;
  }
  // Lengths across the padding boundary.
  for (size_t n : {55, 56, 57, 63, 64, 65}) {
    Sha256 h;
    for (size_t i = 0; i < n; ++i) h.Update(std::string_view(data).substr(i, 1));
    EXPECT_EQ(HexEncode(h.Final()), Sha256Hex(std::string_view(data).substr(0, n)));
  }
}

// ---- HMAC-SHA256 (RFC 4231 test cases 1, 2, 3, 6, 7) ----

TEST(HmacSha256Test, Rfc4231) {
  EXPECT_EQ(HmacHex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HmacHex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacHex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  EXPECT_EQ(HmacHex(std::string(131, '\xaa'),
                    "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(HmacHex(std::string(131, '\xaa'),
                    "This is a test using a larger than block-size key and a larger than "
                    "block-size data. The key needs to be hashed before being used by the HMAC "
                    "algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

// ---- Signing steps ----

TEST(SigV4Test, DerivedSigningKeyDocExample) {
  // AWS's "derive a signing key" example: 20120215 / us-east-1 / iam.
  EXPECT_EQ(HexEncode(DeriveSigningKey(kExampleSecret, "20120215", "us-east-1", "iam")),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

// The SigV4 test suite (2015 edition): example.amazonaws.com, service "service".
struct SuiteCase {
  const char* name;
  const char* method;
  const char* target;
  const char* canonical_query;
  const char* signature;
};

TEST(SigV4Test, TestSuiteGetVanillaFamily) {
  const SuiteCase cases[] = {
      {"get-vanilla", "GET", "/", "",
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-query-order-key-case", "GET", "/?Param2=value2&Param1=value1",
       "Param1=value1&Param2=value2",
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"post-vanilla", "POST", "/", "",
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"get-utf8", "GET", "/\xe1\x88\xb4", "",
       "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
  };
  const std::vector<HeaderView> headers = {{"Host", "example.amazonaws.com"},
                                           {"X-Amz-Date", "20150830T123600Z"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string target = c.target;
    size_t q = target.find('?');
    EXPECT_EQ(CanonicalQueryString(q == std::string::npos ? "" : target.substr(q + 1)),
              c.canonical_query);
    std::string creq = CanonicalRequest(c.method, target, headers, "host;x-amz-date", kEmptyHash);
    std::string sts =
        StringToSign("20150830T123600Z", "20150830/us-east-1/service/aws4_request", creq);
    EXPECT_EQ(ComputeSignature(kExampleSecret, "20150830", "us-east-1", "service", sts),
              c.signature);

    // The verifier accepts the same request with the published Authorization header.
    SigV4Verifier verifier(TestConfig({{"AKIDEXAMPLE", kExampleSecret}}, "", "20150830T123600Z"));
    SigV4Request req{c.method, target, headers};
    std::string auth =
        std::string("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
                    "aws4_request, SignedHeaders=host;x-amz-date, Signature=") +
        c.signature;
    req.headers.emplace_back("Authorization", auth);
    Status s = verifier.Verify(req, "");
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
}

TEST(SigV4Test, GetVanillaIntermediateSteps) {
  const std::vector<HeaderView> headers = {{"Host", "example.amazonaws.com"},
                                           {"X-Amz-Date", "20150830T123600Z"}};
  std::string creq = CanonicalRequest("GET", "/", headers, "host;x-amz-date", kEmptyHash);
  EXPECT_EQ(creq,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" +
                std::string(kEmptyHash));
  EXPECT_EQ(Sha256Hex(creq), "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(StringToSign("20150830T123600Z", "20150830/us-east-1/service/aws4_request", creq),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
}

TEST(SigV4Test, IamListUsersWalkthrough) {
  // The worked example of AWS's "create a canonical request" pages.
  const std::string body = "Action=ListUsers&Version=2010-05-08";
  const std::vector<HeaderView> headers = {
      {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
      {"Host", "iam.amazonaws.com"},
      {"X-Amz-Date", "20110909T233600Z"}};
  EXPECT_EQ(Sha256Hex(body), "b6359072c78d70ebee1e81adcbab4f01bf2c23245fa365ef83fe8f1f955085e2");
  std::string creq =
      CanonicalRequest("POST", "/", headers, "content-type;host;x-amz-date", Sha256Hex(body));
  EXPECT_EQ(creq,
            "POST\n/\n\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\n"
            "host:iam.amazonaws.com\nx-amz-date:20110909T233600Z\n\n"
            "content-type;host;x-amz-date\n"
            "b6359072c78d70ebee1e81adcbab4f01bf2c23245fa365ef83fe8f1f955085e2");
  EXPECT_EQ(Sha256Hex(creq), "3511de7e95d28ecd39e9513b642aee07e54f4941150d8df8bf94b328ef7e55e2");
  std::string sts = StringToSign("20110909T233600Z", "20110909/us-east-1/iam/aws4_request", creq);
  EXPECT_EQ(ComputeSignature(kExampleSecret, "20110909", "us-east-1", "iam", sts),
            "ced6826de92d2bdeed8f846f0bf508e8559e98e4b0199114b84c54174deb456c");
}

TEST(SigV4Test, S3GetObjectExampleWithContentSha256) {
  // S3's "GET Object" example: a Range header and x-amz-content-sha256 are signed.
  SigV4Verifier verifier(TestConfig({{"AKIAIOSFODNN7EXAMPLE",
                                      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
                                    "s3", "20130524T000000Z"));
  SigV4Request req{"GET",
                   "/test.txt",
                   {{"Host", "examplebucket.s3.amazonaws.com"},
                    {"Range", "bytes=0-9"},
                    {"x-amz-content-sha256", kEmptyHash},
                    {"x-amz-date", "20130524T000000Z"},
                    {"Authorization",
                     "AWS4-HMAC-SHA256 "
                     "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                     "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                     "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"}}};
  Status s = verifier.Verify(req, "");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(SigV4Test, CanonicalPieces) {
  EXPECT_EQ(UriEncode("a b/c~d*e", false), "a%20b%2Fc~d%2Ae");
  EXPECT_EQ(UriEncode("a b/c", true), "a%20b/c");
  EXPECT_EQ(CanonicalUri(""), "/");
  EXPECT_EQ(CanonicalUri("/"), "/");
  EXPECT_EQ(CanonicalUri("/a/./b/../c"), "/a/c");
  EXPECT_EQ(CanonicalUri("/a/b/.."), "/a/");
  // Non-S3 services encode the already-encoded path again.
  EXPECT_EQ(CanonicalUri("/a%20b"), "/a%2520b");
  EXPECT_EQ(CanonicalQueryString("b=2&a=1&A=0"), "A=0&a=1&b=2");
  EXPECT_EQ(CanonicalQueryString("k=v%20w&flag"), "flag=&k=v%20w");
  EXPECT_EQ(CanonicalQueryString("k=b&k=a"), "k=a&k=b");
  EXPECT_EQ(CanonicalHeaders({{"My-Header", "  a   b  c "}, {"my-header", "d"}, {"Other", "x"}},
                             "my-header"),
            "my-header:a b c,d\n");
}

// ---- A request signed by botocore (boto3 1.43) ----
//
// Generated once with botocore.auth.SigV4Auth(Credentials("AKIDDYNAROCKTEST",
// "dynarock/Secret+Key/EXAMPLE"), "dynamodb", "us-west-2") on a GetItem POST to
// http://127.0.0.1:8000/ with the clock fixed at 2024-05-17T13:01:30Z.

constexpr char kBotoKey[] = "AKIDDYNAROCKTEST";
constexpr char kBotoSecret[] = "dynarock/Secret+Key/EXAMPLE";
constexpr char kBotoBody[] = R"({"TableName":"people","Key":{"pk":{"S":"USER#Frodo"}}})";
constexpr char kBotoAuth[] =
    "AWS4-HMAC-SHA256 Credential=AKIDDYNAROCKTEST/20240517/us-west-2/dynamodb/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
    "Signature=bcfd4c4b625644c2d5ea94c92e91ab7ce5d796d919bd5055c630c3977594ccd2";

SigV4Request BotoRequest(const char* auth = kBotoAuth) {
  return SigV4Request{"POST",
                      "/",
                      {{"Host", "127.0.0.1:8000"},
                       {"Accept-Encoding", "identity"},
                       {"Content-Type", "application/x-amz-json-1.0"},
                       {"X-Amz-Target", "DynamoDB_20120810.GetItem"},
                       {"User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11"},
                       {"X-Amz-Date", "20240517T130130Z"},
                       {"Authorization", auth},
                       {"Content-Length", "55"}}};
}

SigV4Verifier BotoVerifier() {
  return SigV4Verifier(
      TestConfig({{"OTHERKEY", "x"}, {kBotoKey, kBotoSecret}}, "dynamodb", kBotoDate));
}

TEST(SigV4VerifierTest, AcceptsBotocoreSignature) {
  Status s = BotoVerifier().Verify(BotoRequest(), kBotoBody);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(SigV4VerifierTest, HeaderCaseAndOrderDoNotMatter) {
  SigV4Request req = BotoRequest();
  for (auto& h : req.headers) {
    if (h.first == "Host") h.first = "HOST";
    if (h.first == "X-Amz-Target") h.first = "x-amz-target";
  }
  std::swap(req.headers.front(), req.headers.back());
  Status s = BotoVerifier().Verify(req, kBotoBody);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(SigV4VerifierTest, TamperedBodyOrHeaderIsInvalidSignature) {
  SigV4Verifier v = BotoVerifier();
  Status s = v.Verify(BotoRequest(), R"({"TableName":"people","Key":{"pk":{"S":"USER#Sam"}}})");
  EXPECT_EQ(s.type(), ErrorType::kInvalidSignature);
  EXPECT_EQ(s.message(),
            "The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details.");

  SigV4Request req = BotoRequest();
  for (auto& h : req.headers) {
    if (h.first == "X-Amz-Target") h.second = "DynamoDB_20120810.DeleteItem";
  }
  EXPECT_EQ(v.Verify(req, kBotoBody).type(), ErrorType::kInvalidSignature);

  // Unsigned headers may change freely.
  req = BotoRequest();
  req.headers.emplace_back("X-Unsigned", "anything");
  EXPECT_TRUE(v.Verify(req, kBotoBody).ok());
}

TEST(SigV4VerifierTest, WrongSecretIsInvalidSignature) {
  SigV4Verifier v(TestConfig({{kBotoKey, "not-the-secret"}}, "dynamodb", kBotoDate));
  EXPECT_EQ(v.Verify(BotoRequest(), kBotoBody).type(), ErrorType::kInvalidSignature);
}

TEST(SigV4VerifierTest, UnknownAccessKeyIsUnrecognizedClient) {
  SigV4Verifier v(TestConfig({{"SOMEONEELSE", kBotoSecret}}, "dynamodb", kBotoDate));
  Status s = v.Verify(BotoRequest(), kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kUnrecognizedClient);
  EXPECT_EQ(s.message(), "The security token included in the request is invalid.");
}

TEST(SigV4VerifierTest, MissingAuthorizationIsMissingAuthenticationToken) {
  SigV4Request req = BotoRequest();
  std::erase_if(req.headers, [](const HeaderView& h) { return h.first == "Authorization"; });
  Status s = BotoVerifier().Verify(req, kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kMissingAuthenticationToken);
  EXPECT_EQ(s.message(), "Request is missing Authentication Token");
  // "AWS4" without the algorithm's dash is no SigV4 header at all.
  EXPECT_EQ(BotoVerifier().Verify(BotoRequest("AWS4"), kBotoBody).type(),
            ErrorType::kMissingAuthenticationToken);
}

TEST(SigV4VerifierTest, MalformedHeaderIsIncompleteSignature) {
  SigV4Verifier v = BotoVerifier();
  Status s = v.Verify(BotoRequest("AWS4-"), kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kIncompleteSignature);
  SigV4Request no_date = BotoRequest("AWS4-");
  std::erase_if(no_date.headers, [](const HeaderView& h) { return h.first == "X-Amz-Date"; });
  EXPECT_EQ(v.Verify(no_date, kBotoBody).message(),
            "Authorization header requires 'Credential' parameter. "
            "Authorization header requires 'Signature' parameter. "
            "Authorization header requires 'SignedHeaders' parameter. "
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' "
            "header. Authorization=AWS4-");
  EXPECT_EQ(v.Verify(BotoRequest("AWS4- Signature=b, Credential=a"), kBotoBody).message(),
            "Authorization header requires 'SignedHeaders' parameter. "
            "Authorization=AWS4- Signature=b, Credential=a");
  s = v.Verify(BotoRequest("AWS4-HMAC-SHA256 Credential=a/b/c/d/aws4_request, SignedHeaders=host, "
                           "Signature=ab, junk"),
               kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kIncompleteSignature);
  EXPECT_NE(s.message().find("missing equal-sign"), std::string::npos) << s.message();
  s = v.Verify(BotoRequest("AWS4-HMAC-SHA256 Credential=AKIDDYNAROCKTEST/20240517/us-west-2, "
                           "SignedHeaders=host, Signature=ab"),
               kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kIncompleteSignature);
  s = v.Verify(BotoRequest("AWS4-HMAC-SHA256 Credential=AKIDDYNAROCKTEST/20240517/us-west-2/"
                           "dynamodb/aws5_request, SignedHeaders=host, Signature=ab"),
               kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kIncompleteSignature);
}

TEST(SigV4VerifierTest, ScopeDateMustMatchRequestDate) {
  Status s = BotoVerifier().Verify(
      BotoRequest("AWS4-HMAC-SHA256 Credential=AKIDDYNAROCKTEST/20240518/us-west-2/dynamodb/"
                  "aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                  "Signature=bcfd4c4b625644c2d5ea94c92e91ab7ce5d796d919bd5055c630c3977594ccd2"),
      kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kInvalidSignature);
}

TEST(SigV4VerifierTest, DisabledAcceptsAnything) {
  SigV4Verifier v;
  EXPECT_FALSE(v.enabled());
  EXPECT_TRUE(v.Verify(SigV4Request{"POST", "/", {}}, "{}").ok());
  EXPECT_TRUE(v.Verify(BotoRequest("garbage"), "{}").ok());
}

TEST(SigV4VerifierTest, ExpiredOrFutureSignatureIsInvalid) {
  // Five minutes either way, as DynamoDB allows: a captured request cannot be
  // replayed later.
  for (int64_t offset : {-301, 301}) {
    AuthConfig c = TestConfig({{kBotoKey, kBotoSecret}}, "dynamodb", kBotoDate);
    const int64_t now = EpochOf(kBotoDate) + offset;
    c.now_seconds = [now] { return now; };
    Status s = SigV4Verifier(c).Verify(BotoRequest(), kBotoBody);
    EXPECT_EQ(s.type(), ErrorType::kInvalidSignature);
    if (offset > 0) {
      EXPECT_EQ(s.message(), "Signature expired: 20240517T130130Z is now earlier than "
                             "20240517T130131Z (20240517T130631Z - 5 min.)");
    } else {
      EXPECT_EQ(s.message(), "Signature not yet current: 20240517T130130Z is still later than "
                             "20240517T130129Z (20240517T125629Z + 5 min.)");
    }
  }
  for (int64_t offset : {-300, 0, 300}) {
    AuthConfig c = TestConfig({{kBotoKey, kBotoSecret}}, "dynamodb", kBotoDate);
    const int64_t now = EpochOf(kBotoDate) + offset;
    c.now_seconds = [now] { return now; };
    EXPECT_TRUE(SigV4Verifier(c).Verify(BotoRequest(), kBotoBody).ok()) << offset;
  }
}

TEST(SigV4VerifierTest, ScopeMustNameDynamoDbAndSignTheHost) {
  SigV4Verifier s3(TestConfig({{kBotoKey, kBotoSecret}}, "s3", kBotoDate));
  Status s = s3.Verify(BotoRequest(), kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kInvalidSignature);
  EXPECT_EQ(s.message(), "Credential should be scoped to correct service: 's3'. ");
  std::string auth = kBotoAuth;
  auth.replace(auth.find("content-type;host;"), 18, "content-type;");
  s = BotoVerifier().Verify(BotoRequest(auth.c_str()), kBotoBody);
  EXPECT_EQ(s.type(), ErrorType::kInvalidSignature);
  EXPECT_EQ(s.message(), "'Host' must be a 'SignedHeader' in the AWS Authorization.");
}

TEST(SigV4VerifierTest, ParseKeySecret) {
  AccessKey k;
  ASSERT_TRUE(AuthConfig::ParseKeySecret("KEY:sec:ret", &k));
  EXPECT_EQ(k.id, "KEY");
  EXPECT_EQ(k.secret, "sec:ret");
  EXPECT_FALSE(AuthConfig::ParseKeySecret("KEY", &k));
  EXPECT_FALSE(AuthConfig::ParseKeySecret(":secret", &k));
  EXPECT_FALSE(AuthConfig::ParseKeySecret("KEY:", &k));
}

}  // namespace
}  // namespace dynarock::api
