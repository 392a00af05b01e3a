#pragma once
// Request bodies in the Kubernetes protobuf encoding (application/vnd.kubernetes.protobuf), for
// the built-in kinds kubectl sends that way. kubectl's typed clients (`kubectl create namespace`,
// `create configmap`, `create secret generic`) always write protobuf and, unlike a CBOR request,
// do not retry as JSON after 415, so the server has to read them.
//
// The envelope is the 4-byte magic "k8s\0" followed by a runtime.Unknown message (typeMeta = 1
// {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4); `raw` is the object's
// own message. Decoded here: v1 Namespace, ConfigMap, Secret and ServiceAccount with the ObjectMeta
// fields a client sets on create (name, generateName, namespace, labels, annotations,
// ownerReferences, finalizers), and the spec of the bodies `kubectl create token` and `kubectl auth
// can-i` send: authentication.k8s.io/v1 TokenRequest and TokenReview, authorization.k8s.io/v1
// SubjectAccessReview and SelfSubjectAccessReview.
#include <boost/json/value.hpp>

#include <string_view>

namespace nvcre::sim {

// True when `content_type` names the protobuf encoding.
bool is_protobuf_media_type(std::string_view content_type);

// The object `body` carries, as the JSON the API would have received. Throws ApiError 415 for a
// kind that is not decoded here (what to send instead is in the message) and 400 for a body that is
// not a well-formed protobuf envelope.
boost::json::value decode_protobuf_object(std::string_view body);

// A request body as the API server reads it: protobuf as above, else a JSON object. Throws ApiError
// 415 for another binary encoding and 400 for a body that is not a JSON object.
boost::json::value decode_request_body(std::string_view content_type, std::string_view body);

}  // namespace nvcre::sim
