// +groupName=e15.errors.rkb.io
package v1
