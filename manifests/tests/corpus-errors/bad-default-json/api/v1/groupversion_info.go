// +groupName=e8.errors.rkb.io
package v1
