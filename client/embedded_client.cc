// File: client/embedded_client.cc

#include "client/embedded_client.h"

namespace dynarock::client {

StatusOr<CreateTableResponse> EmbeddedClient::CreateTable(const CreateTableRequest& req) {
  return db_->CreateTable(req);
}
StatusOr<DescribeTableResponse> EmbeddedClient::DescribeTable(const DescribeTableRequest& req) {
  return db_->DescribeTable(req);
}
StatusOr<DeleteTableResponse> EmbeddedClient::DeleteTable(const DeleteTableRequest& req) {
  return db_->DeleteTable(req);
}
StatusOr<PutItemResponse> EmbeddedClient::PutItem(const PutItemRequest& req) {
  return db_->PutItem(req);
}
StatusOr<GetItemResponse> EmbeddedClient::GetItem(const GetItemRequest& req) {
  return db_->GetItem(req);
}
StatusOr<UpdateItemResponse> EmbeddedClient::UpdateItem(const UpdateItemRequest& req) {
  return db_->UpdateItem(req);
}
StatusOr<DeleteItemResponse> EmbeddedClient::DeleteItem(const DeleteItemRequest& req) {
  return db_->DeleteItem(req);
}
StatusOr<QueryResponse> EmbeddedClient::Query(const QueryRequest& req) { return db_->Query(req); }
StatusOr<ScanResponse> EmbeddedClient::Scan(const ScanRequest& req) { return db_->Scan(req); }
StatusOr<BatchGetItemResponse> EmbeddedClient::BatchGetItem(const BatchGetItemRequest& req) {
  return db_->BatchGetItem(req);
}
StatusOr<BatchWriteItemResponse> EmbeddedClient::BatchWriteItem(
    const BatchWriteItemRequest& req) {
  return db_->BatchWriteItem(req);
}
StatusOr<TransactWriteItemsResponse> EmbeddedClient::TransactWriteItems(
    const TransactWriteItemsRequest& req) {
  return db_->TransactWriteItems(req);
}

}  // namespace dynarock::client
